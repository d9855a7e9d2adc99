"""Build cache, callable image, simulator and run configuration."""

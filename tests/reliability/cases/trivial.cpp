// The smallest object the build cache can build (no tile library): cache-layout tests.
extern "C" int ptokit_trivial(void) { return 42; }

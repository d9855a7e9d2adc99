// The row width the external kernel of tests/e2e/test_external_kernel.py works on, reached from the
// kernel's own folder by a relative include (the kernel is built where it lies).
#pragma once
#define ROW_FLOATS 16

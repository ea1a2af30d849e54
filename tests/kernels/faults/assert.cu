// Planted fault: a failed device-side assert (cudaErrorAssert, a sticky error). NVRTC has
// no <assert.h>: this is what assert expands to on the device.
extern "C" __device__ void __assertfail(const char* message, const char* file, unsigned line, const char* function,
                                        size_t char_size);
extern "C" __global__ void assert_fails(const unsigned n, const REAL* x, REAL* y) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) __assertfail("i != 0", __FILE__, __LINE__, "assert_fails", 1);
  if (i < n) y[i] = x[i];
}

// Error checking for OpenCL calls: the exception names the call and the error code.
#pragma once

#include <CL/cl.h>

#include <string>

namespace hetbench {

const char* cl_error_name(cl_int err);
[[noreturn]] void cl_fail(cl_int err, const char* call, const std::string& where);

#define HB_CL(call, where)                                 \
  do {                                                     \
    cl_int hb_err_ = (call);                               \
    if (hb_err_ != CL_SUCCESS) ::hetbench::cl_fail(hb_err_, #call, where); \
  } while (0)

}  // namespace hetbench

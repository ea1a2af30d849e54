// Content hashes of input files (a Matrix Market matrix is identified by its content, not
// its path): SHA-256 through OpenSSL's libcrypto.
#pragma once

#include <string>

namespace hetbench {

// 64 lowercase hex digits; throws Error "cannot read '<path>'".
std::string sha256_file(const std::string& path);

}  // namespace hetbench

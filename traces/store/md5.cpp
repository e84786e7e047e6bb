// MD5 through OpenSSL's EVP interface (the low-level MD5() calls are deprecated in OpenSSL 3).
#include "store/md5.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace traces {

std::string md5Hex(std::string_view data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_md5(), nullptr) != 1)
        throw std::runtime_error("OpenSSL MD5 failed");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex(length * 2, '0');
    for (unsigned int i = 0; i < length; ++i) {
        hex[2 * i] = kHex[digest[i] >> 4];
        hex[2 * i + 1] = kHex[digest[i] & 15];
    }
    return hex;
}

}  // namespace traces

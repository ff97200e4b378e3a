// SHA-256 through OpenSSL's EVP interface.
#include "Sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace tpuc::project {

void Sha256::Free::operator()(evp_md_ctx_st *ctx) const { EVP_MD_CTX_free(ctx); }

Sha256::Sha256() : m_ctx(EVP_MD_CTX_new()) {
  if (!m_ctx || EVP_DigestInit_ex(m_ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256: OpenSSL could not initialise a digest");
}

Sha256::~Sha256() = default;

void Sha256::update(const void *data, std::size_t size) {
  if (size && EVP_DigestUpdate(m_ctx.get(), data, size) != 1)
    throw std::runtime_error("SHA-256: digest update failed");
}

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(m_ctx.get(), digest, &length) != 1)
    throw std::runtime_error("SHA-256: digest finalisation failed");
  static const char *kDigits = "0123456789abcdef";
  std::string text;
  for (unsigned int i = 0; i < length; ++i) {
    text.push_back(kDigits[digest[i] >> 4]);
    text.push_back(kDigits[digest[i] & 15]);
  }
  return text;
}

} // namespace tpuc::project

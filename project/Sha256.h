// SHA-256 content hashes for the project store and artifact cache, computed by OpenSSL's libcrypto.
#ifndef TPUC_APP_PROJECT_SHA256_H
#define TPUC_APP_PROJECT_SHA256_H

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace tpuc::project {

/// Incremental SHA-256: update() any number of times, then hex() once.
class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256 &) = delete;
  Sha256 &operator=(const Sha256 &) = delete;
  void update(const void *data, std::size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  /// The digest as 64 lowercase hex digits. Ends the computation.
  std::string hex();

private:
  struct Free {
    void operator()(evp_md_ctx_st *ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> m_ctx;
};

} // namespace tpuc::project

#endif

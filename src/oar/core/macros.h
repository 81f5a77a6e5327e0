// Small portability macros.
#pragma once

// Thread-locals read on every op: the initial-exec model makes an access a
// single instruction instead of a __tls_get_addr call. Only for small
// variables: the static TLS space of a dlopen()ed library is limited.
#if defined(__GNUC__)
#define OAR_HOT_TLS __attribute__((tls_model("initial-exec")))
#else
#define OAR_HOT_TLS
#endif

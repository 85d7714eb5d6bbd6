#pragma once
// How a device entry point is declared, so that one declaration serves both builds. With CUDA
// (KLEENE_HAVE_CUDA, from the generated kleene/config.hpp) it stays a declaration, defined in a
// .cu file; without CUDA the same declaration becomes an inline definition that throws
// kleene::no_device: every device request is a clear error, never a silent CPU fallback, and no
// stub file repeats the signatures.
//
//   KLEENE_DEVICE_ENTRIES_BEGIN            (once before the declarations of a header)
//   template <class T>
//   KLEENE_DEVICE_ENTRY void f(dense_view<T, device> a) KLEENE_DEVICE_BODY;
//   template <class T>
//   KLEENE_DEVICE_ENTRY T g(dense_view<T const, device> a) KLEENE_DEVICE_VALUE;
//   KLEENE_DEVICE_ENTRY int device_count() noexcept KLEENE_DEVICE_RETURNS(0);
//   handle() KLEENE_DEVICE_BODY;           (members: in-class definitions are inline already)
//   ~handle() KLEENE_DEVICE_DEFAULT;
//   KLEENE_DEVICE_ENTRIES_END
//
// KLEENE_DEVICE_ENTRY is `inline` without CUDA (nothing with it: the .cu file's definition must
// not be inline) and goes on every namespace-scope entry point. Before the declaration's `;`
// (after a definition, an empty declaration) comes one of: KLEENE_DEVICE_BODY (void functions,
// constructors) or KLEENE_DEVICE_VALUE (the rest), which throw no_device; KLEENE_DEVICE_RETURNS(v)
// for the noexcept queries and releases that answer instead (no device: 0, nothing to free);
// KLEENE_DEVICE_DEFAULT for the destructor and moves of a handle that cannot be constructed. With
// CUDA all of them are nothing. The BEGIN / END pair silences -Wunused-parameter over the bodies,
// which name but never read their parameters.

#if __has_include(<kleene/config.hpp>)
#include <kleene/config.hpp>
#endif

namespace kleene::detail {

/// Throws no_device, always. Out of line (lib/core/src/memory.cpp) and not [[noreturn]] on purpose:
/// an inline entry point that visibly never returns makes GCC's -Winfinite-recursion flag every
/// recursion whose base case calls one (R-Kleene's), and a recursion that may end is what it is.
void device_unavailable();

}  // namespace kleene::detail

#if defined(KLEENE_HAVE_CUDA)
#define KLEENE_DEVICE_ENTRY
#define KLEENE_DEVICE_BODY
#define KLEENE_DEVICE_VALUE
#define KLEENE_DEVICE_RETURNS(...)
#define KLEENE_DEVICE_DEFAULT
#define KLEENE_DEVICE_ENTRIES_BEGIN
#define KLEENE_DEVICE_ENTRIES_END
#else
#define KLEENE_DEVICE_ENTRY inline
#define KLEENE_DEVICE_BODY \
    { ::kleene::detail::device_unavailable(); }
#define KLEENE_DEVICE_VALUE                       \
    {                                             \
        ::kleene::detail::device_unavailable();   \
        return {}; /* never reached: it throws */ \
    }
#define KLEENE_DEVICE_RETURNS(...) \
    { return __VA_ARGS__; }
#define KLEENE_DEVICE_DEFAULT = default
#define KLEENE_DEVICE_ENTRIES_BEGIN \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")
#define KLEENE_DEVICE_ENTRIES_END _Pragma("GCC diagnostic pop")
#endif

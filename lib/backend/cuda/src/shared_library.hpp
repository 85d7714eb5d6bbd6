#pragma once
// The CUDA toolkit's libraries that kleene calls on some paths only, opened with dlopen on first
// use rather than linked: NVRTC (the JIT), cuBLAS (the dense plus_times products over float and
// double) and cuSPARSE (the sparse products' cusparse backend). Linked, cuBLAS alone made every
// process that links kleene (each `kleene` command, each test, `import kleene`) take about 80 ms
// more to start (its initialisers touch about 100 MB) and cuSPARSE with nvJitLink 10 ms more,
// whether it multiplied anything or not (docs/lab/ci-build-time.md). A library that cannot be
// loaded is a clear error when it is first needed, naming the file and how to get it.

#include <kleene/error.hpp>

#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace kleene::cuda::detail {

/// An opened library (never closed: the process keeps it, as it would a linked one), or why
/// none of the names could be opened.
struct shared_library {
    void* handle = nullptr;
    std::string error;
};

/// Opens the first of `names` that loads; `what` names the library and its package in the error.
inline shared_library open_shared_library(std::initializer_list<std::string> names,
                                          std::string const& what) {
    shared_library lib;
    std::string tried;
    for (std::string const& name : names) {
        lib.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib.handle) return lib;
        char const* e = dlerror();
        tried += (tried.empty() ? "" : "; ") + std::string(e ? e : name);
    }
    lib.error = what + " could not be loaded (" + tried +
                "). It is part of the CUDA toolkit; install it or add its directory to "
                "LD_LIBRARY_PATH";
    return lib;
}

/// Looks up one entry point; false when the library lacks it.
template <class F>
bool bind_symbol(void* handle, char const* name, F& f) {
    f = reinterpret_cast<F>(dlsym(handle, name));
    return f != nullptr;
}

/// A library's entry points: Api derives from shared_api and has `bool bind(void* handle)`,
/// which looks its pointers up (false when one is missing).
struct shared_api {
    void* handle = nullptr;  ///< null: not loaded, `error` says why
    std::string error;
};

/// Opens the first of `names` that loads and binds Api's entry points; `what` names the library
/// in the error when none loads, `missing` is the error when an entry point is absent.
template <class Api>
Api open_api(std::initializer_list<std::string> names, std::string const& what,
             std::string const& missing) {
    Api api;
    auto lib = open_shared_library(names, what);
    if (!lib.handle) {
        api.error = lib.error;
    } else if (!api.bind(lib.handle)) {
        api.error = missing;
    } else {
        api.handle = lib.handle;
    }
    return api;
}

/// api, once loaded; else device_error saying why it could not be.
template <class Api>
Api const& loaded(Api const& api) {
    if (!api.handle) throw device_error(api.error);
    return api;
}

}  // namespace kleene::cuda::detail

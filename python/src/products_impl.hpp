#pragma once
// The bodies of products<T> (products.hpp), included by one products_<type>.cpp per value type.

#include <cstring>
#include <limits>

#include "products.hpp"

namespace kleene::python {

namespace product_detail {

template <class M>
using value_of = typename M::value_type;

template <class I, class J>
buffer<I> narrow_indices(J const* p, std::size_t n) {
    buffer<I> out(n);
    for (std::size_t k = 0; k < n; ++k) {
        if constexpr (sizeof(J) > sizeof(I))
            if (p[k] > static_cast<J>(std::numeric_limits<I>::max()))
                throw invalid_argument(
                    "host products and operations run on int32 indices, and an int64 index or "
                    "offset (" +
                    std::to_string(p[k]) + ") does not fit them");
        out[k] = static_cast<I>(p[k]);
    }
    return out;
}

/// An operand as host CSR<T, I>: the storage itself when it is one, else a converted copy (index
/// width; dense storage with `absent` for no entry). Other value types and device storage are
/// refused with a message that says what to do; `op` names the operation in it.
template <class T, class I>
struct csr_operand {
    std::optional<host_csr<T, I>> owned;
    host_csr<T, I> const* p = nullptr;

    csr_operand(matrix_handle const& h, T absent, char const* what,
                char const* op = "the product") {
        if ((p = std::get_if<host_csr<T, I>>(h.s.get()))) return;
        h.visit([&](auto const& m) {
            using M = std::decay_t<decltype(m)>;
            if constexpr (!std::is_same_v<value_of<M>, T>) {
                throw invalid_argument(std::string(what) + " is " + dtype_name<value_of<M>>() +
                                       " but " + op + " is over " + dtype_name<T>() +
                                       ": convert it with astype(\"" + dtype_name<T>() + "\")");
            } else if constexpr (is_host_csr<M>) {
                owned.emplace(m.rows(), m.cols(), narrow_indices<I>(m.row_ptr(), m.rows() + 1),
                              narrow_indices<I>(m.col_idx(), m.nnz()),
                              buffer<T>(m.values_storage()), m.iso_value(), true);
            } else if constexpr (is_host_dense<M>) {
                owned.emplace(kleene::to_csr<T, I>(m, absent));
            } else {
                throw space_mismatch(std::string(what) + " is in device memory and " + op +
                                     " runs on the host; call to_host() first");
            }
        });
        p = &*owned;
    }
};

/// Any matrix as a Boolean CSR mask: the stored entries, true where the value is non-zero. Dense
/// storage stores every entry (so its structure is all of them, as kleene's dense masks).
template <class I>
host_csr<bool, I> mask_of(matrix_handle const& h) {
    return h.visit([&](auto const& m) -> host_csr<bool, I> {
        using M = std::decay_t<decltype(m)>;
        using U = value_of<M>;
        if constexpr (is_host_csr<M>) {
            buffer<bool> v(m.nnz());
            for (std::size_t k = 0; k < m.nnz(); ++k) v[k] = !(m.value(k) == U(0));
            return {m.rows(),
                    m.cols(),
                    narrow_indices<I>(m.row_ptr(), m.rows() + 1),
                    narrow_indices<I>(m.col_idx(), m.nnz()),
                    std::move(v),
                    true,
                    true};
        } else if constexpr (is_host_dense<M>) {
            std::size_t const r = m.rows(), c = m.cols();
            if (r * c > static_cast<std::size_t>(std::numeric_limits<I>::max()))
                throw invalid_argument("mask: a dense " + detail::shape(r, c) +
                                       " mask does not fit int32 indices");
            buffer<I> ptr(r + 1), col(r * c);
            buffer<bool> v(r * c);
            for (std::size_t i = 0; i <= r; ++i) ptr[i] = static_cast<I>(i * c);
            for (std::size_t k = 0; k < r * c; ++k) {
                col[k] = static_cast<I>(k % c);
                v[k] = !(m.data()[k] == U(0));
            }
            return {r, c, std::move(ptr), std::move(col), std::move(v), true, true};
        } else {
            throw space_mismatch("mask is in device memory and the product runs on the host; "
                                 "call to_host() first");
        }
    });
}

template <class T>
dense_vector<T> vector_of(py::handle h, char const* what) {
    auto a = as_array<T>(h);
    if (a.ndim() != 1)
        throw invalid_argument(std::string(what) + " must be a one-dimensional array");
    dense_vector<T> v(static_cast<std::size_t>(a.size()));
    if (a.size())
        std::memcpy(static_cast<void*>(v.data()), a.data(),
                    static_cast<std::size_t>(a.size()) * sizeof(T));
    return v;
}

template <class T>
py::array adopt_vector(dense_vector<T>&& v) {
    auto* owned = new dense_vector<T>(std::move(v));
    py::capsule base(owned, [](void* p) { delete static_cast<dense_vector<T>*>(p); });
    static T const empty{};
    return py::array(py::dtype::of<T>(), {static_cast<py::ssize_t>(owned->size())}, {},
                     owned->data() ? owned->data() : &empty, base);
}

inline bool is_dense_host(matrix_handle const& h) {
    return h.visit([](auto const& m) { return is_host_dense<std::decay_t<decltype(m)>>; });
}

template <class T, class I, class S>
host_csr<T, I> mxm_csr(S const& s, matrix_handle const& ah, matrix_handle const& bh,
                       product_args const& args, options opt) {
    T const zero = s.zero();
    csr_operand<T, I> a(ah, zero, "A"), b(bh, zero, "B");
    host_csr<T, I> c = args.out ? host_csr<T, I>(*csr_operand<T, I>(*args.out, zero, "out").p)
                                : host_csr<T, I>(a.p->rows(), b.p->cols());
    std::optional<host_csr<bool, I>> m;
    if (args.mask) m = mask_of<I>(*args.mask);
    py::gil_scoped_release release;
    auto product = [&](auto& target, auto accum, options const& o) {
        if (m)
            kleene::mxm(target,
                        mask_view<host_csr<bool, I>>{&*m, args.structural, args.complemented},
                        accum, *a.p, *b.p, s, o);
        else
            kleene::mxm(target, no_mask, accum, *a.p, *b.p, s, o);
    };
    if (args.accum.empty()) {
        product(c, no_accum, opt);
    } else if (args.accum == add_name(s)) {
        with_add_op(s, [&](auto op) { product(c, op, opt); });
    } else {
        // C<M, replace> accum= A B as GraphBLAS defines it: Z = A B under M, then C's entries
        // inside M become the union C accum Z; outside M they stay (or go, with replace).
        dispatch_accum<T>(args.accum, [&](auto op) {
            host_csr<T, I> z(c.rows(), c.cols());
            options inner = opt;
            inner.replace = false;
            product(z, no_accum, inner);
            host_csr<T, I> next = c;
            if (m)
                kleene::ewise_add(
                    next, mask_view<host_csr<bool, I>>{&*m, args.structural, args.complemented},
                    no_accum, op, c, z, opt);
            else
                kleene::ewise_add(next, no_mask, no_accum, op, c, z, opt);
            c = std::move(next);
        });
    }
    return c;
}

/// One line for the explain trace saying which semiring instance ran.
template <class S>
void trace_semiring(options const& opt, semiring_spec const& spec, S const&) {
    if constexpr (!semiring_type<S>)
        if (opt.explain)
            opt.explain->add("semiring " + spec.name +
                             ": a run-time composition (runtime_semiring: the generic CPU "
                             "kernels, operators chosen per call)");
}

}  // namespace product_detail

template <class T>
py::tuple products<T>::mxm(matrix_handle const& a, matrix_handle const& b,
                           product_args const& args) {
    using namespace product_detail;
    explain_trace trace;
    options opt;
    opt.replace = args.replace;
    opt.kernel = parse_kernel(args.kernel);
    if (args.explain) opt.explain = &trace;
    std::optional<matrix_handle> result;
    dispatch_host_semiring<T>(args.semiring, [&](auto const& s) {
        using S = std::decay_t<decltype(s)>;
        trace_semiring(opt, args.semiring, s);
        bool const plain_dense =
            is_dense_host(a) && is_dense_host(b) && !args.out && !args.mask && args.accum.empty();
        if constexpr (!semiring_type<S>) {
            // The dense GEMM takes static semirings: a run-time one multiplies as CSR (the
            // semiring's zero is no entry, as in dense storage) and the result is made dense.
            if (plain_dense) {
                auto const c = mxm_csr<T, i32>(s, a, b, args, opt);
                result = matrix_handle::of(kleene::to_dense(c, s.zero()));
                return;
            }
        } else if (plain_dense) {
            auto const& da = std::get<dense_matrix<T>>(*a.s);
            auto const* db = std::get_if<dense_matrix<T>>(b.s.get());
            if (!db)
                throw invalid_argument("B's value type differs from A's (" +
                                       std::string(dtype_name<T>()) +
                                       "): convert it with astype()");
            dense_matrix<T> c(da.rows(), db->cols());
            {
                py::gil_scoped_release release;
                kleene::mxm(c, da, *db, s, opt);
            }
            result = matrix_handle::of(std::move(c));
            return;
        }
        result = matrix_handle::of(mxm_csr<T, i32>(s, a, b, args, opt));
    });
    return py::make_tuple(*result,
                          args.explain ? py::object(py::str(trace.str())) : py::object(py::none()));
}

namespace product_detail {

template <class T, bool Pull>
py::tuple vector_product(matrix_handle const& ah, py::handle uh, vector_args const& args) {
    explain_trace trace;
    options opt;
    opt.replace = args.replace;
    opt.kernel = parse_kernel(args.kernel);
    if (args.explain) opt.explain = &trace;
    char const* const name = Pull ? "mxv" : "vxm";
    dense_vector<T> u = vector_of<T>(uh, "u");
    std::optional<dense_vector<bool>> m;
    if (!args.mask.is_none()) m = vector_of<bool>(args.mask, "mask");
    py::array out;
    dispatch_host_semiring<T>(args.semiring, [&](auto const& s) {
        trace_semiring(opt, args.semiring, s);
        bool const accumulate = !args.accum.empty();
        if (accumulate && args.accum != add_name(s))
            throw invalid_argument(std::string(name) +
                                   ": vectors accumulate with the semiring's add (" +
                                   add_name(s) + ") only, not " + args.accum);
        auto run = [&](auto const& a) {
            std::size_t const out_size = Pull ? a.rows() : a.cols();
            dense_vector<T> w = args.out.is_none() ? dense_vector<T>(out_size, s.zero())
                                                   : vector_of<T>(args.out, "out");
            {
                py::gil_scoped_release release;
                auto call = [&](auto const& mask, auto accum) {
                    if constexpr (Pull)
                        kleene::mxv(w, mask, accum, a, u, s, opt);
                    else
                        kleene::vxm(w, mask, accum, u, a, s, opt);
                };
                auto with_mask = [&](auto accum) {
                    if (m)
                        call(mask_view<dense_vector<bool>>{&*m, false, args.complemented}, accum);
                    else
                        call(no_mask, accum);
                };
                if (accumulate)
                    with_add_op(s, with_mask);
                else
                    with_mask(no_accum);
            }
            out = adopt_vector(std::move(w));
        };
        run(*csr_operand<T, i32>(ah, s.zero(), "A").p);
    });
    return py::make_tuple(out,
                          args.explain ? py::object(py::str(trace.str())) : py::object(py::none()));
}

}  // namespace product_detail

template <class T>
py::tuple products<T>::mxv(matrix_handle const& a, py::handle u, vector_args const& args) {
    return product_detail::vector_product<T, true>(a, u, args);
}

template <class T>
py::tuple products<T>::vxm(py::handle u, matrix_handle const& a, vector_args const& args) {
    return product_detail::vector_product<T, false>(a, u, args);
}

}  // namespace kleene::python

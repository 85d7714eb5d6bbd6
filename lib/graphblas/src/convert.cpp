#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <kleene/error.hpp>
#include <kleene/graphblas/convert.hpp>
#include <new>
#include <string>

namespace kleene::graphblas {

namespace {
// GxB pack takes ownership of malloc'd arrays (GrB_init makes GraphBLAS use malloc/free) and
// nulls the pointers on success; unpack hands out arrays the caller frees. `owned` frees whatever
// is still held when it goes out of scope.
template <class T>
struct owned {
    T* p = nullptr;
    std::size_t bytes = 0;
    explicit owned(std::size_t n) : bytes(std::max<std::size_t>(1, n) * sizeof(T)) {
        p = static_cast<T*>(std::malloc(bytes));
        if (!p) throw std::bad_alloc();
    }
    owned() = default;
    owned(owned const&) = delete;
    owned& operator=(owned const&) = delete;
    ~owned() { std::free(p); }
    void** as_void() { return reinterpret_cast<void**>(&p); }
};

void check_type(GrB_Type have, GrB_Type want, char const* what) {
    if (have != want)
        throw invalid_argument(
            std::string("kleene::graphblas: ") + what +
            " has a different GraphBLAS type than the kleene container asked for");
}

GrB_Type type_of(GrB_Matrix m) {
    GrB_Type t = nullptr;
    check(GxB_Matrix_type(&t, m), "GxB_Matrix_type");
    return t;
}
GrB_Type type_of(GrB_Vector v) {
    GrB_Type t = nullptr;
    check(GxB_Vector_type(&t, v), "GxB_Vector_type");
    return t;
}

matrix dup(GrB_Matrix m) {
    GrB_Matrix d = nullptr;
    check(GrB_Matrix_dup(&d, m), "GrB_Matrix_dup");
    return matrix(d);
}
vector dup(GrB_Vector v) {
    GrB_Vector d = nullptr;
    check(GrB_Vector_dup(&d, v), "GrB_Vector_dup");
    return vector(d);
}

/// Counts the entries of [first, first + n) that differ from `absent` and writes the bitmap.
template <class T>
std::size_t present(T const* first, std::size_t n, T absent, std::int8_t* bitmap) {
    std::size_t count = 0;
    for (std::size_t k = 0; k < n; ++k) {
        bool const has = !(first[k] == absent);
        if (bitmap) bitmap[k] = has;
        count += has;
    }
    return count;
}
}  // namespace

// ---- handles ------------------------------------------------------------------------------------

matrix::matrix(GrB_Type type, std::size_t rows, std::size_t cols) {
    ensure_initialized();
    check(GrB_Matrix_new(&m_, type, rows, cols), "GrB_Matrix_new");
}
matrix::~matrix() {
    if (m_) GrB_Matrix_free(&m_);
}
std::size_t matrix::rows() const {
    GrB_Index n = 0;
    check(GrB_Matrix_nrows(&n, m_), "GrB_Matrix_nrows");
    return n;
}
std::size_t matrix::cols() const {
    GrB_Index n = 0;
    check(GrB_Matrix_ncols(&n, m_), "GrB_Matrix_ncols");
    return n;
}
std::size_t matrix::nvals() const {
    GrB_Index n = 0;
    check(GrB_Matrix_nvals(&n, m_), "GrB_Matrix_nvals");
    return n;
}
void matrix::wait() const {
    check(GrB_Matrix_wait(m_, GrB_MATERIALIZE), "GrB_Matrix_wait");
}

vector::vector(GrB_Type type, std::size_t n) {
    ensure_initialized();
    check(GrB_Vector_new(&v_, type, n), "GrB_Vector_new");
}
vector::~vector() {
    if (v_) GrB_Vector_free(&v_);
}
std::size_t vector::size() const {
    GrB_Index n = 0;
    check(GrB_Vector_size(&n, v_), "GrB_Vector_size");
    return n;
}
std::size_t vector::nvals() const {
    GrB_Index n = 0;
    check(GrB_Vector_nvals(&n, v_), "GrB_Vector_nvals");
    return n;
}
void vector::wait() const {
    check(GrB_Vector_wait(v_, GrB_MATERIALIZE), "GrB_Vector_wait");
}

// ---- kleene -> GraphBLAS ------------------------------------------------------------------------

template <class T, index_type Index>
matrix to_grb(csr_matrix<T, Index> const& a) {
    matrix m(grb_type<T>(), a.rows(), a.cols());
    std::size_t const nnz = a.nnz();
    if (nnz == 0) return m;  // nothing to pack (see the vector case)
    bool const iso = a.is_iso();
    owned<GrB_Index> ap(a.rows() + 1), aj(nnz);
    owned<T> ax(iso ? 1 : nnz);
    std::copy(a.row_ptr(), a.row_ptr() + a.rows() + 1, ap.p);
    std::copy(a.col_idx(), a.col_idx() + nnz, aj.p);
    if (iso)
        ax.p[0] = a.iso_value();
    else
        std::copy(a.values(), a.values() + nnz, ax.p);
    check(GxB_Matrix_pack_CSR(m.get(), &ap.p, &aj.p, ax.as_void(), ap.bytes, aj.bytes, ax.bytes,
                              iso, false, nullptr),
          "GxB_Matrix_pack_CSR");
    return m;
}

template <class T>
matrix to_grb(dense_matrix<T> const& a, T absent) {
    std::size_t const n = a.rows() * a.cols();
    if (present(a.data(), n, absent, nullptr) == n) return to_grb_full(a);
    matrix m(grb_type<T>(), a.rows(), a.cols());
    owned<std::int8_t> ab(n);
    owned<T> ax(n);
    std::size_t const nvals = present(a.data(), n, absent, ab.p);
    std::copy(a.data(), a.data() + n, ax.p);
    check(GxB_Matrix_pack_BitmapR(m.get(), &ab.p, ax.as_void(), ab.bytes, ax.bytes, false, nvals,
                                  nullptr),
          "GxB_Matrix_pack_BitmapR");
    return m;
}

template <class T>
matrix to_grb_full(dense_matrix<T> const& a) {
    matrix m(grb_type<T>(), a.rows(), a.cols());
    std::size_t const n = a.rows() * a.cols();
    // Without entries there is nothing to pack (and GraphBLAS 7.4 mishandles a packed empty full
    // matrix used as a mask with an accumulator).
    if (n == 0) return m;
    owned<T> ax(n);
    std::copy(a.data(), a.data() + n, ax.p);
    check(GxB_Matrix_pack_FullR(m.get(), ax.as_void(), ax.bytes, false, nullptr),
          "GxB_Matrix_pack_FullR");
    return m;
}

template <class T, index_type Index>
vector to_grb(sparse_vector<T, Index> const& v) {
    vector g(grb_type<T>(), v.size());
    std::size_t const nnz = v.nnz();
    // A packed empty vector of length 0 makes GraphBLAS 7.4's GrB_mxv report a dimension mismatch.
    if (nnz == 0) return g;
    owned<GrB_Index> vi(nnz);
    owned<T> vx(nnz);
    std::copy(v.indices(), v.indices() + nnz, vi.p);
    std::copy(v.values(), v.values() + nnz, vx.p);
    check(GxB_Vector_pack_CSC(g.get(), &vi.p, vx.as_void(), vi.bytes, vx.bytes, false, nnz, false,
                              nullptr),
          "GxB_Vector_pack_CSC");
    return g;
}

template <class T>
vector to_grb(dense_vector<T> const& v, T absent) {
    std::size_t const n = v.size();
    if (present(v.data(), n, absent, nullptr) == n) return to_grb_full(v);
    vector g(grb_type<T>(), n);
    owned<std::int8_t> vb(n);
    owned<T> vx(n);
    std::size_t const nvals = present(v.data(), n, absent, vb.p);
    std::copy(v.data(), v.data() + n, vx.p);
    check(GxB_Vector_pack_Bitmap(g.get(), &vb.p, vx.as_void(), vb.bytes, vx.bytes, false, nvals,
                                 nullptr),
          "GxB_Vector_pack_Bitmap");
    return g;
}

template <class T>
vector to_grb_full(dense_vector<T> const& v) {
    vector g(grb_type<T>(), v.size());
    if (v.size() == 0) return g;
    owned<T> vx(v.size());
    std::copy(v.data(), v.data() + v.size(), vx.p);
    check(GxB_Vector_pack_Full(g.get(), vx.as_void(), vx.bytes, false, nullptr),
          "GxB_Vector_pack_Full");
    return g;
}

// ---- GraphBLAS -> kleene ------------------------------------------------------------------------
// Each reads a duplicate unpacked into the wanted format: GraphBLAS converts whatever it holds
// (hypersparse, bitmap, full, by column) and sorts the indices (jumbled == nullptr asks for that).

template <class T, index_type Index>
csr_matrix<T, Index> csr_from_grb(GrB_Matrix m) {
    ensure_initialized();
    check_type(type_of(m), grb_type<T>(), "csr_from_grb: the matrix");
    matrix d = dup(m);
    std::size_t const rows = d.rows(), cols = d.cols();
    owned<GrB_Index> ap, aj;
    owned<T> ax;
    GrB_Index ap_size = 0, aj_size = 0, ax_size = 0;
    bool iso = false;
    check(GxB_Matrix_unpack_CSR(d.get(), &ap.p, &aj.p, ax.as_void(), &ap_size, &aj_size, &ax_size,
                                &iso, nullptr, nullptr),
          "GxB_Matrix_unpack_CSR");
    std::size_t const nnz = ap.p[rows];
    buffer<Index> ptr(rows + 1), idx(nnz);
    buffer<T> vals(nnz);
    std::copy(ap.p, ap.p + rows + 1, ptr.data());
    std::copy(aj.p, aj.p + nnz, idx.data());
    if (iso)
        std::fill(vals.data(), vals.data() + nnz, nnz ? ax.p[0] : T());
    else
        std::copy(ax.p, ax.p + nnz, vals.data());
    return {rows, cols, std::move(ptr), std::move(idx), std::move(vals), T(1), true};
}

template <class T>
dense_matrix<T> dense_from_grb(GrB_Matrix m, T absent) {
    ensure_initialized();
    check_type(type_of(m), grb_type<T>(), "dense_from_grb: the matrix");
    matrix d = dup(m);
    std::size_t const rows = d.rows(), cols = d.cols(), n = rows * cols;
    owned<std::int8_t> ab;
    owned<T> ax;
    GrB_Index ab_size = 0, ax_size = 0, nvals = 0;
    bool iso = false;
    check(GxB_Matrix_unpack_BitmapR(d.get(), &ab.p, ax.as_void(), &ab_size, &ax_size, &iso, &nvals,
                                    nullptr),
          "GxB_Matrix_unpack_BitmapR");
    dense_matrix<T> out(rows, cols);
    for (std::size_t k = 0; k < n; ++k) out.data()[k] = ab.p[k] ? ax.p[iso ? 0 : k] : absent;
    return out;
}

template <class T, index_type Index>
sparse_vector<T, Index> sparse_from_grb(GrB_Vector v) {
    ensure_initialized();
    check_type(type_of(v), grb_type<T>(), "sparse_from_grb: the vector");
    vector d = dup(v);
    std::size_t const n = d.size();
    owned<GrB_Index> vi;
    owned<T> vx;
    GrB_Index vi_size = 0, vx_size = 0, nvals = 0;
    bool iso = false;
    check(GxB_Vector_unpack_CSC(d.get(), &vi.p, vx.as_void(), &vi_size, &vx_size, &iso, &nvals,
                                nullptr, nullptr),
          "GxB_Vector_unpack_CSC");
    buffer<Index> idx(nvals);
    buffer<T> vals(nvals);
    std::copy(vi.p, vi.p + nvals, idx.data());
    if (iso)
        std::fill(vals.data(), vals.data() + nvals, nvals ? vx.p[0] : T());
    else
        std::copy(vx.p, vx.p + nvals, vals.data());
    return {n, std::move(idx), std::move(vals)};
}

template <class T>
dense_vector<T> dense_from_grb(GrB_Vector v, T absent) {
    ensure_initialized();
    check_type(type_of(v), grb_type<T>(), "dense_from_grb: the vector");
    vector d = dup(v);
    std::size_t const n = d.size();
    owned<std::int8_t> vb;
    owned<T> vx;
    GrB_Index vb_size = 0, vx_size = 0, nvals = 0;
    bool iso = false;
    check(GxB_Vector_unpack_Bitmap(d.get(), &vb.p, vx.as_void(), &vb_size, &vx_size, &iso, &nvals,
                                   nullptr),
          "GxB_Vector_unpack_Bitmap");
    dense_vector<T> out(n);
    for (std::size_t k = 0; k < n; ++k) out[k] = vb.p[k] ? vx.p[iso ? 0 : k] : absent;
    return out;
}

#define KLEENE_GRB_CONVERT_INSTANTIATE(T)                                                 \
    template matrix to_grb(csr_matrix<T, std::int32_t> const&);                           \
    template matrix to_grb(csr_matrix<T, std::int64_t> const&);                           \
    template matrix to_grb(dense_matrix<T> const&, T);                                    \
    template matrix to_grb_full(dense_matrix<T> const&);                                  \
    template vector to_grb(sparse_vector<T, std::int32_t> const&);                        \
    template vector to_grb(sparse_vector<T, std::int64_t> const&);                        \
    template vector to_grb(dense_vector<T> const&, T);                                    \
    template vector to_grb_full(dense_vector<T> const&);                                  \
    template csr_matrix<T, std::int32_t> csr_from_grb<T, std::int32_t>(GrB_Matrix);       \
    template csr_matrix<T, std::int64_t> csr_from_grb<T, std::int64_t>(GrB_Matrix);       \
    template dense_matrix<T> dense_from_grb<T>(GrB_Matrix, T);                            \
    template sparse_vector<T, std::int32_t> sparse_from_grb<T, std::int32_t>(GrB_Vector); \
    template sparse_vector<T, std::int64_t> sparse_from_grb<T, std::int64_t>(GrB_Vector); \
    template dense_vector<T> dense_from_grb<T>(GrB_Vector, T);
KLEENE_GRB_CONVERT_INSTANTIATE(float)
KLEENE_GRB_CONVERT_INSTANTIATE(double)
KLEENE_GRB_CONVERT_INSTANTIATE(std::int32_t)
KLEENE_GRB_CONVERT_INSTANTIATE(std::int64_t)
KLEENE_GRB_CONVERT_INSTANTIATE(bool)
#undef KLEENE_GRB_CONVERT_INSTANTIATE

}  // namespace kleene::graphblas

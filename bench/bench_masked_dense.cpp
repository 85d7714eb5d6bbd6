// Masked products with a dense B (issue "The second floor", item 6): C<M> = A (+).(x) B with A
// dense (m x k) or CSR (m x k, --a-deg entries a row), B dense (k x n) and a structural CSR mask M
// of --mask-deg random entries a row, into a CSR C:
//   - masked: the masked products pinned (kernel masked_dot: cpu::masked_dense, or on the device
//     cuda::masked_gemm / masked_spmm), one product of A(i,:) and B(:,j) per entry of M;
//   - whole:  the whole product pinned (dense_gemm or csr_dense: the GEMM or the SpMM into a dense
//     temporary), then the masked write-back (on the device the temporary made CSR first);
// With --b-deg D, B is CSR (D entries a row) and A dense: masked is B transposed, then
// cpu::masked_dense_bt (cuda::masked_dot_dense); whole is dense_csr (on the device B made dense,
// then the GEMM).
//   - auto:   mxm's choice (masked_dense_model.hpp), named.
// With --dense-c, C is a dense matrix (with replace: entries outside the mask become the
// semiring's zero): masked makes the CSR result, then makes it dense; whole writes the dense
// temporary back through the mask (on the device its flags made dense from the CSR mask). On the
// CPU the times also hold the result made CSR for the comparison (the device's do not).
// The rows' results are compared (equal entries, to a relative 1e-4 for float sums); the whole
// product is skipped where its dense temporary would pass --whole-limit GiB. Times: the median
// of --runs calls after a warm-up, in ms (device calls return with their work done). The model's
// two sides are printed with the times, for fitting its weights.
//
//   bench_masked_dense [--device cpu|gpu] [--m M] [--k K] [--n N] [--a-deg D | --b-deg D]
//                      [--mask-deg d1,d2,...] [--runs R] [--semiring plus_times|min_plus]
//                      [--whole-limit GiB] [--dense-c]

#include <kleene/kleene.hpp>

#include "timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace kleene;

namespace {

struct args_t {
    bool gpu = false;
    std::size_t m = 4096, k = 64, n = 4096, a_deg = 0, b_deg = 0;
    std::vector<double> mask_deg{1, 4, 16, 64, 256};
    int runs = 5;
    std::string semiring = "plus_times";
    double whole_limit = 32;
    bool dense_c = false;
};

args_t parse(int argc, char** argv) {
    args_t a;
    for (int i = 1; i < argc; ++i) {
        std::string const f = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(f + " needs a value");
            return argv[++i];
        };
        if (f == "--device") a.gpu = next() == "gpu";
        else if (f == "--m") a.m = std::stoull(next());
        else if (f == "--k") a.k = std::stoull(next());
        else if (f == "--n") a.n = std::stoull(next());
        else if (f == "--a-deg") a.a_deg = std::stoull(next());
        else if (f == "--b-deg") a.b_deg = std::stoull(next());
        else if (f == "--runs") a.runs = std::stoi(next());
        else if (f == "--semiring") a.semiring = next();
        else if (f == "--whole-limit") a.whole_limit = std::stod(next());
        else if (f == "--dense-c") a.dense_c = true;
        else if (f == "--mask-deg") {
            a.mask_deg.clear();
            std::stringstream ss(next());
            for (std::string x; std::getline(ss, x, ',');) a.mask_deg.push_back(std::stod(x));
        } else {
            throw std::invalid_argument("unknown flag " + f);
        }
    }
    if (a.b_deg > 0 && a.a_deg > 0) throw std::invalid_argument("--b-deg: with a dense A");
    if (a.semiring != "plus_times" && a.semiring != "min_plus")
        throw std::invalid_argument("--semiring is plus_times or min_plus");
    return a;
}

/// Rows of `deg` distinct random columns (fewer where cols is smaller), sorted; values in [1, 2).
csr_matrix<float> random_rows(std::size_t rows, std::size_t cols, double deg, std::mt19937_64& g) {
    std::vector<std::int32_t> ii, jj;
    std::vector<float> vv;
    std::uniform_real_distribution<float> val(1.f, 2.f);
    auto const per = static_cast<std::size_t>(std::min<double>(deg, double(cols)));
    ii.reserve(rows * per), jj.reserve(rows * per), vv.reserve(rows * per);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t r = 0; r < per; ++r) {
            ii.push_back(std::int32_t(i));
            jj.push_back(std::int32_t(g() % cols));
            vv.push_back(val(g));
        }
    return csr_matrix<float>::from_coo(rows, cols, ii, jj, vv, duplicate_policy::last);
}

dense_matrix<float> random_dense(std::size_t rows, std::size_t cols, std::mt19937_64& g) {
    dense_matrix<float> d(rows, cols);
    std::uniform_real_distribution<float> val(1.f, 2.f);
    for (std::size_t q = 0; q < rows * cols; ++q) d.data()[q] = val(g);
    return d;
}

/// Whether two results hold the same entries (values to a relative 1e-4).
bool same(csr_matrix<float> const& x, csr_matrix<float> const& y) {
    if (x.nnz() != y.nnz()) return false;
    for (std::size_t q = 0; q <= x.rows(); ++q)
        if (x.row_ptr()[q] != y.row_ptr()[q]) return false;
    for (std::size_t q = 0; q < x.nnz(); ++q) {
        if (x.col_idx()[q] != y.col_idx()[q]) return false;
        double const a = x.value(q), b = y.value(q);
        if (std::abs(a - b) > 1e-4 * std::max(1.0, std::abs(b))) return false;
    }
    return true;
}

template <class S>
int run(args_t const& o) {
    std::mt19937_64 g(2026);
    bool const csr_a = o.a_deg > 0;
    auto const ad = csr_a ? dense_matrix<float>() : random_dense(o.m, o.k, g);
    auto const ac = csr_a ? random_rows(o.m, o.k, double(o.a_deg), g) : csr_matrix<float>(0, 0);
    bool const csr_b = o.b_deg > 0;
    auto const b = csr_b ? dense_matrix<float>() : random_dense(o.k, o.n, g);
    auto const bc = csr_b ? random_rows(o.k, o.n, double(o.b_deg), g) : csr_matrix<float>(0, 0);
    double const whole_gib = double(o.m) * double(o.n) * 4.0 / double(1u << 30);
    fmt::print("# bench_masked_dense {} {}: A {} {} x {}{}, B {} {} x {}{}; {} C; whole product's "
               "temporary {:.2f} GiB\n",
               o.gpu ? "gpu" : "cpu", o.semiring, csr_a ? "CSR" : "dense", o.m, o.k,
               csr_a ? fmt::format(" ({} a row, {} entries)", o.a_deg, ac.nnz()) : "",
               csr_b ? "CSR" : "dense", o.k, o.n,
               csr_b ? fmt::format(" ({} a row, {} entries)", o.b_deg, bc.nnz()) : "",
               o.dense_c ? "dense" : "CSR", whole_gib);
    fmt::print("{:>9} {:>12} {:>11} {:>11} {:>11}  {:<16} {}\n", "mask/row", "mask nnz",
               "masked ms", "whole ms", "auto ms", "auto took", "model (auto's trace)");
    int bad = 0;
    for (double d : o.mask_deg) {
        auto const mk = random_rows(o.m, o.n, d, g);
        csr_matrix<float> got_masked, got_whole;
        double t_masked = 0, t_whole = -1, t_auto = 0;
        std::string took, model;
        auto pick = [&](std::string const& s) {
            took = s.find("masked_gemm (") != std::string::npos ||
                           s.find("masked_spmm (") != std::string::npos ||
                           s.find("masked_dense (") != std::string::npos ||
                           s.find("masked_dense_bt (") != std::string::npos ||
                           s.find("masked_dot_dense (") != std::string::npos
                       ? "masked"
                       : "whole";
            auto const at = s.find("about ");
            model = at == std::string::npos ? "" : s.substr(at, s.find(')', at) - at);
        };
        bool const do_whole = whole_gib <= o.whole_limit;
        if (o.gpu) {
            auto const md = mk.to_device();
            auto const bd = csr_b ? dense_matrix<float, device>() : b.to_device();
            auto const bcd = csr_b ? bc.to_device() : csr_matrix<float, std::int32_t, device>();
            auto const a_d = csr_a ? dense_matrix<float, device>() : ad.to_device();
            auto const a_c = csr_a ? ac.to_device() : csr_matrix<float, std::int32_t, device>();
            auto product = [&](auto& c, kernel_choice kc, explain_trace* why) {
                options opt{.replace = o.dense_c, .kernel = kc, .explain = why};
                if (csr_a) mxm(c, structure(md), no_accum, a_c, bd, S{}, opt);
                else if (csr_b) mxm(c, structure(md), no_accum, a_d, bcd, S{}, opt);
                else mxm(c, structure(md), no_accum, a_d, bd, S{}, opt);
            };
            auto time = [&](kernel_choice kc) {
                if (o.dense_c) {
                    return bench::median_ms(o.runs, [&] {
                        dense_matrix<float, device> c(o.m, o.n);
                        product(c, kc, nullptr);
                    });
                }
                return bench::median_ms(o.runs, [&] {
                    csr_matrix<float, std::int32_t, device> c(o.m, o.n);
                    product(c, kc, nullptr);
                });
            };
            auto call = [&](kernel_choice kc, explain_trace* why) {
                if (o.dense_c) {
                    dense_matrix<float, device> c(o.m, o.n);
                    product(c, kc, why);
                    return to_csr<float, std::int32_t>(c.to_host(), S::zero());
                }
                csr_matrix<float, std::int32_t, device> c(o.m, o.n);
                product(c, kc, why);
                return c.to_host();
            };
            t_masked = time(kernel_choice::masked_dot);
            got_masked = call(kernel_choice::masked_dot, nullptr);
            if (do_whole) {
                auto const kc = csr_a ? kernel_choice::csr_dense : kernel_choice::dense_gemm;
                t_whole = time(kc);
                got_whole = call(kc, nullptr);
            }
            t_auto = time(kernel_choice::automatic);
            explain_trace why;
            call(kernel_choice::automatic, &why);
            pick(why.str());
        } else {
            auto call = [&](kernel_choice kc, explain_trace* why) {
                options opt{.replace = o.dense_c, .kernel = kc, .explain = why};
                auto product = [&](auto& c) {
                    if (csr_a) mxm(c, structure(mk), no_accum, ac, b, S{}, opt);
                    else if (csr_b) mxm(c, structure(mk), no_accum, ad, bc, S{}, opt);
                    else mxm(c, structure(mk), no_accum, ad, b, S{}, opt);
                };
                if (o.dense_c) {
                    dense_matrix<float> c(o.m, o.n);
                    product(c);
                    return to_csr<float, std::int32_t>(c, S::zero());
                }
                csr_matrix<float> c(o.m, o.n);
                product(c);
                return c;
            };
            t_masked = bench::median_ms(o.runs, [&] { call(kernel_choice::masked_dot, nullptr); });
            got_masked = call(kernel_choice::masked_dot, nullptr);
            if (do_whole) {
                auto const kc = csr_a   ? kernel_choice::csr_dense
                                : csr_b ? kernel_choice::dense_csr
                                        : kernel_choice::dense_gemm;
                t_whole = bench::median_ms(o.runs, [&] { call(kc, nullptr); });
                got_whole = call(kc, nullptr);
            }
            t_auto = bench::median_ms(o.runs, [&] { call(kernel_choice::automatic, nullptr); });
            explain_trace why;
            call(kernel_choice::automatic, &why);
            pick(why.str());
        }
        std::string check;
        if (do_whole && !same(got_masked, got_whole)) {
            check = "  RESULTS DIFFER";
            ++bad;
        }
        if (got_masked.nnz() == 0) {
            check += "  EMPTY RESULT";
            ++bad;
        }
        fmt::print("{:>9} {:>12} {:>11.3f} {:>11} {:>11.3f}  {:<16} {}{}\n", d, mk.nnz(),
                   t_masked, t_whole < 0 ? std::string("skipped") : fmt::format("{:.3f}", t_whole),
                   t_auto, took, model, check);
    }
    return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        auto const o = parse(argc, argv);
        return o.semiring == "plus_times" ? run<plus_times<float>>(o) : run<min_plus<float>>(o);
    } catch (std::exception const& e) {
        fmt::print(stderr, "bench_masked_dense: {}\n", e.what());
        return 1;
    }
}

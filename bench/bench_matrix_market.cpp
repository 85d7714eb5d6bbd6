// Matrix Market read / write throughput (MB/s) at 1 thread and all threads, and the binary
// format's reload time against the .mtx read.
//   bench_matrix_market [entries=8000000] [rows=2000000] [dir=/tmp] [keep]
// With `keep` the .mtx file stays for bench/io_scipy.py to read the same bytes.

#include <fmt/core.h>
#include <omp.h>

#include <chrono>
#include <filesystem>
#include <kleene/io/binary.hpp>
#include <kleene/io/matrix_market.hpp>
#include <random>
#include <string>

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
double best_of(int reps, F&& f) {
    double best = 1e300;
    for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, seconds_since(t0));
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t const entries = argc > 1 ? std::stoull(argv[1]) : 8'000'000;
    std::size_t const rows = argc > 2 ? std::stoull(argv[2]) : 2'000'000;
    std::string const dir = argc > 3 ? argv[3] : "/tmp";
    std::string const mtx = dir + "/kleene_bench.mtx", bin = dir + "/kleene_bench.kbin";

    std::mt19937_64 rng(1);
    std::vector<std::int64_t> ii(entries), jj(entries);
    std::vector<double> vv(entries);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::size_t k = 0; k < entries; ++k) {
        ii[k] = static_cast<std::int64_t>(rng() % rows);
        jj[k] = static_cast<std::int64_t>(rng() % rows);
        vv[k] = u(rng);
    }
    auto a = kleene::csr_matrix<double, std::int64_t>::from_coo(rows, rows, ii, jj, vv,
                                                                kleene::duplicate_policy::last);
    int const all = omp_get_max_threads();
    fmt::print("matrix {} x {}, {} entries; threads available: {}\n", rows, rows, a.nnz(), all);
    kleene::io::write_matrix_market(mtx, a);
    double const mb = static_cast<double>(std::filesystem::file_size(mtx)) / 1e6;
    fmt::print("file {}: {:.1f} MB\n\n", mtx, mb);
    fmt::print("{:>8} {:>12} {:>12} {:>12} {:>12}\n", "threads", "write s", "write MB/s", "read s",
               "read MB/s");
    double mtx_read_all = 0;
    for (int t : {1, all}) {
        kleene::io::write_options wo;
        wo.threads = t;
        double const w = best_of(2, [&] { kleene::io::write_matrix_market(mtx, a, wo); });
        kleene::io::read_options ro;
        ro.threads = t;
        double const r =
            best_of(2, [&] { kleene::io::read_matrix_market<double, std::int64_t>(mtx, ro); });
        if (t == all) mtx_read_all = r;
        fmt::print("{:>8} {:>12.3f} {:>12.1f} {:>12.3f} {:>12.1f}\n", t, w, mb / w, r, mb / r);
        if (all == 1) break;
    }
    double const bw = best_of(2, [&] { kleene::io::write_binary(bin, a); });
    double const br = best_of(3, [&] { kleene::io::read_binary<double, std::int64_t>(bin); });
    double const bmb = static_cast<double>(std::filesystem::file_size(bin)) / 1e6;
    fmt::print(
        "\nbinary {}: {:.1f} MB, write {:.3f} s, read {:.3f} s ({:.1f} MB/s); "
        "reload {:.1f}x faster than the .mtx read at {} threads\n",
        bin, bmb, bw, br, bmb / br, mtx_read_all / br, all);
    if (!(argc > 4 && std::string(argv[4]) == "keep")) std::filesystem::remove(mtx);
    std::filesystem::remove(bin);
}

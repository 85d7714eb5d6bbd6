// The distributed apsp and closure commands: rank 0 reads the graph and sends it to every rank,
// all ranks run the distributed blocked Floyd-Warshall (MPI on the CPU, NCCL between GPUs), the
// result is gathered to rank 0, which writes it (atomically, as the single-process commands do),
// or, with --distributed-output DIR, every rank writes its own blocks (layout.hpp: no gather).
// Every step that can fail on one rank ends in an agreement, so that all ranks fail together:
// rank 0 prints the message, every rank exits 1. A rank that waited past --rank-timeout for the
// others (one is stuck or lost) cannot agree: it prints its message and ends the job (MPI_Abort,
// in main()).

#include <fmt/core.h>

#include <chrono>
#include <cstdlib>
#include <kleene/algorithms/distributed/apsp.hpp>
#include <kleene/algorithms/distributed/layout.hpp>
#include <kleene/algorithms/distributed/mpi.hpp>
#include <kleene/algorithms/distributed/nccl.hpp>
#include <kleene/algorithms/distributed/predecessors.hpp>
#include <kleene/algorithms/paths.hpp>
#include <kleene/convert.hpp>
#include <kleene/cuda/runtime.hpp>
#include <kleene/io/matrix_market.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../files.hpp"
#include "../finite_weights.hpp"
#include "distributed.hpp"

namespace kleene::tools {

struct mpi_session {
    distributed::mpi_environment env;
    mpi_session(int& argc, char**& argv) : env(argc, argv) {}
};

std::unique_ptr<mpi_session, void (*)(mpi_session*)> start_mpi_if_launched(int& argc,
                                                                           char**& argv) {
    auto const del = [](mpi_session* s) { delete s; };
    // Open MPI's mpirun, and PMI / PMIx launchers (srun, MPICH's hydra).
    for (char const* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
        if (std::getenv(v)) return {new mpi_session(argc, argv), del};
    return {nullptr, del};
}
int mpi_rank(mpi_session const& s) {
    return s.env.rank();
}
int mpi_size(mpi_session const& s) {
    return s.env.size();
}
void mpi_abort(int code) {
    distributed::mpi_environment::abort(code);
}

namespace {

using distributed::control;

/// Runs f on every rank; a failure anywhere becomes the same failure everywhere (rank 0 reports).
template <class F>
auto together(control& c, F&& f) -> decltype(f()) {
    std::string why;
    std::optional<decltype(f())> r;
    try {
        r.emplace(f());
    } catch (std::exception const& e) {
        why = e.what();
    }
    c.agree(why.empty(), why);
    return std::move(*r);
}

[[noreturn]] void fail(control const& c, std::string const& msg) {
    if (c.rank() == 0) throw agreed_failure(msg);
    throw reported_elsewhere();
}

/// The graph from rank 0 to every rank (CSR arrays).
template <class T>
csr_matrix<T> share_graph(control& c, csr_matrix<T> a) {
    std::uint64_t dims[3] = {a.rows(), a.cols(), a.nnz()};
    c.broadcast(dims, sizeof dims, 0);
    if (c.rank() == 0) {
        c.broadcast(const_cast<std::int32_t*>(a.row_ptr()), (dims[0] + 1) * sizeof(std::int32_t),
                    0);
        c.broadcast(const_cast<std::int32_t*>(a.col_idx()), dims[2] * sizeof(std::int32_t), 0);
        buffer<T> v(dims[2]);
        for (std::size_t k = 0; k < dims[2]; ++k) v[k] = a.value(k);
        c.broadcast(v.data(), dims[2] * sizeof(T), 0);
        return a;
    }
    buffer<std::int32_t> ptr(dims[0] + 1), col(dims[2]);
    buffer<T> val(dims[2]);
    c.broadcast(ptr.data(), (dims[0] + 1) * sizeof(std::int32_t), 0);
    c.broadcast(col.data(), dims[2] * sizeof(std::int32_t), 0);
    c.broadcast(val.data(), dims[2] * sizeof(T), 0);
    return csr_matrix<T>(dims[0], dims[1], std::move(ptr), std::move(col), std::move(val), T(1),
                         true);
}

/// The device: gpu when asked, or (auto) when every rank has one; NCCL set up for it.
struct device_setup {
    bool gpu = false;
    std::unique_ptr<distributed::nccl_panels> panels;
};

/// --local-blocks auto, device or streamed as distributed::options::blocks.
distributed::device_fw_options::residence residence_of(std::string const& s) {
    using residence = distributed::device_fw_options::residence;
    return s == "device" ? residence::device : s == "streamed" ? residence::streamed
                                                               : residence::automatic;
}

/// --local-blocks device or streamed asks about GPUs: refused where the run is on the CPU.
void check_local_blocks(control& c, distributed_args const& args, device_setup const& dev) {
    if (!dev.gpu && args.local_blocks != "auto")
        fail(c, "distributed: --local-blocks " + args.local_blocks +
                    " places each rank's blocks on or through its GPU, but this run is on the CPU");
}

device_setup setup_device(control& c, std::string const& device, bool gpu_type) {
    device_setup s;
    bool const have = together(c, [] { return cuda::device_count() > 0; });
    bool const all_have = c.allreduce_min(have ? 1 : 0) == 1;
    if (device == "gpu") {
        if (!gpu_type) fail(c, "distributed: the GPU runs fp32, fp64 and int32 only");
        if (!all_have) fail(c, "distributed: --device gpu, but some rank has no CUDA device");
        s.gpu = true;
    } else if (device == "auto") {
        s.gpu = gpu_type && all_have;
    }
    if (!s.gpu) return s;
    // NVLink multicast stays off: on shared hosts it can take the GPUs out of service.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    together(c, [&] { return distributed::use_device(c.local_rank()); });
    s.panels = std::make_unique<distributed::nccl_panels>(c);
    return s;
}

/// --rank-timeout, and the tests' --inject-fault (checked when the command line was parsed).
void set_fault_options(distributed::options& opt, distributed_args const& args) {
    opt.timeout = args.rank_timeout;
    if (!args.inject_fault.empty()) opt.fault = distributed::parse_fault_plan(args.inject_fault);
}

distributed::process_grid grid_of(mpi_session const& s) {
    return distributed::choose_grid(mpi_size(s));
}

/// --distributed-output: the blocks written by every rank, the manifest by rank 0; the summary
/// and the trace on rank 0. `entries`: what counts as a stored entry of the result.
template <class T, class Keep>
void write_layout(distributed_args const& args, global_options const& g, control& c,
                  distributed::layout_writer& lw, distributed::local_result<T> const& r,
                  distributed::layout_manifest meta, explain_trace& trace, Keep keep,
                  char const* command, double secs, std::string const& how,
                  distributed::layout_writer* paths = nullptr) {
    auto const t0 = std::chrono::steady_clock::now();
    // With --paths the predecessors' layout was staged already: both appear together.
    lw.stage(r.local, r.dist, std::move(meta));
    if (paths) paths->publish();
    lw.publish();
    double const wsecs = c.allreduce_max(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::int64_t mine = 0;
    for (std::size_t i = 0; i < r.local.rows(); ++i)
        for (std::size_t j = 0; j < r.local.cols(); ++j)
            mine += keep(r.local(i, j), r.dist.global_row(r.dist.prow(), i) ==
                                            r.dist.global_col(r.dist.pcol(), j));
    std::int64_t const entries = c.allreduce_sum(mine);
    if (args.explain) distributed::detail::explain_output(trace, r.dist, c, sizeof(T), true, wsecs);
    if (c.rank() != 0) return;
    if (args.explain)
        for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);
    auto const gr = c.grid();
    if (!g.quiet)
        fmt::print(
            "{}: {} vertices, distributed on {} ranks ({} x {}, block {}, {}): {} {}, "
            "{:.3f} ms, written as {} block files ({}/{}){}\n",
            command, r.dist.n(), c.size(), gr.rows, gr.cols, r.dist.block(), how, entries,
            std::string(command) == "apsp" ? "reachable pairs" : "pairs", secs * 1e3, c.size(),
            args.layout_dir, distributed::manifest_name,
            paths ? fmt::format(", predecessors in {}/{}", args.paths, distributed::manifest_name)
                  : std::string());
}

template <class T>
void apsp_typed(distributed_args const& args, global_options const& g, control& c) {
    // Outputs first (a bad path fails before any work), as the single-process command.
    std::optional<distributed::layout_writer> lw, pw;
    if (!args.layout_dir.empty()) {
        lw.emplace(args.layout_dir, c, g.temps);
        // --paths DIR2: the predecessors as a layout of their own, beside the distances'.
        if (!args.paths.empty()) pw.emplace(args.paths, c, g.temps);
    }
    std::optional<output_set> outs;
    std::optional<input> in;
    csr_matrix<T> a = together(c, [&] {
        if (c.rank() != 0) return csr_matrix<T>();
        outs.emplace(g.temps);
        if (!lw) outs->add(args.output);
        if (!lw && !args.paths.empty()) outs->add(args.paths);
        in.emplace(args.input, &args.read);
        auto m = in->matrix<T>();
        require_finite_weights(m, in->name(), "apsp");
        return m;
    });
    a = share_graph(c, std::move(a));
    device_setup const dev = setup_device(
        c, args.device,
        std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t>);
    check_local_blocks(c, args, dev);
    explain_trace trace;
    distributed::options opt;
    opt.block = args.block;
    opt.panels = dev.panels.get();
    opt.lookahead = args.lookahead;
    opt.blocks = residence_of(args.local_blocks);
    opt.explain = args.explain ? &trace : nullptr;
    set_fault_options(opt, args);
    auto const t0 = std::chrono::steady_clock::now();
    distributed::local_result<T> r;
    try {
        r = distributed::apsp(a, c, opt);
    } catch (distributed::rank_timeout const&) {
        throw;  // not agreed: main() prints it and ends the job
    } catch (negative_cycle const& e) {
        fail(c, "negative cycle through vertex " + std::to_string(e.vertex() + 1) +
                    " (1-based): shortest paths are undefined");
    } catch (std::exception const& e) {
        fail(c, e.what());  // every rank throws the same (agreed, or from the same input)
    }
    double const secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (lw) {
        if (pw) {
            // Every rank its own blocks' predecessors, by the single-process rule (no gather).
            // (It agrees on its buffers before any broadcast: a failure reaches every rank.)
            auto const tp = std::chrono::steady_clock::now();
            auto const pred = distributed::local_predecessors(a, r.local, r.dist, c);
            double const psecs = c.allreduce_max(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - tp).count());
            if (args.explain)
                trace.add(fmt::format(
                    "distributed: predecessors on every rank from its process row's distances "
                    "(bands of at most {} MiB; the searches repeated on each of the {} ranks of a "
                    "process row): {:.3g} s (slowest rank)",
                    distributed::predecessor_band_bytes >> 20, c.grid().cols, psecs));
            distributed::layout_manifest pm;
            pm.result = "predecessors";
            pw->stage(pred, r.dist, pm);
        }
        distributed::layout_manifest meta;
        meta.result = "distances";
        write_layout(
            args, g, c, *lw, r, meta, trace, [](T x, bool) { return x != infinity<T>(); }, "apsp",
            secs, dev.gpu ? "gpu, NCCL" : "cpu, MPI", pw ? &*pw : nullptr);
        return;
    }
    auto const tg = std::chrono::steady_clock::now();
    dense_matrix<T> const full = distributed::gather<T>(r.local.view(), r.dist, c);
    if (args.explain)
        distributed::detail::explain_output(
            trace, r.dist, c, sizeof(T), false,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - tg).count());
    if (c.rank() != 0) return;
    if (args.explain)
        for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);
    auto const d = to_csr<T>(full, infinity<T>());
    if (!args.paths.empty()) {
        // Predecessors on rank 0 from the gathered distances (the single-process CPU rule).
        dense_matrix<std::int32_t> const pred = predecessors(a, dense_view<T const>(full.view()));
        dense_matrix<std::int32_t> p(pred.rows(), pred.cols());
        for (std::size_t i = 0; i < p.rows(); ++i)
            for (std::size_t j = 0; j < p.cols(); ++j) p(i, j) = pred(i, j) + 1;
        io::write_matrix_market((*outs)[1], to_csr<std::int32_t>(p, 0));
    }
    io::write_matrix_market((*outs)[0], d);
    outs->commit();
    auto const gr = c.grid();
    if (!g.quiet && args.output != "-")
        fmt::print(
            "apsp: {} vertices, {} edges, distributed blocked-fw on {} ranks ({} x {}, block "
            "{}, {}): {} reachable pairs, {:.3f} ms ({})\n",
            a.rows(), a.nnz(), c.size(), gr.rows, gr.cols, r.dist.block(),
            dev.gpu ? "gpu, NCCL" : "cpu, MPI", d.nnz(), secs * 1e3, args.output);
}

void apsp_distributed(distributed_args const& args, global_options const& g, control& c);
void closure_distributed(distributed_args const& args, global_options const& g, control& c);

/// Failures every rank agreed on: rank 0 reports them, the others exit 1 quietly.
template <class F>
void reporting_on_rank_0(control const& c, F&& f) {
    try {
        f();
    } catch (distributed::collective_error const& e) {
        fail(c, e.what());
    }
}

}  // namespace

void run_apsp_distributed(distributed_args const& args, global_options const& g) {
    distributed::mpi_control c(grid_of(*g.mpi));
    reporting_on_rank_0(c, [&] { apsp_distributed(args, g, c); });
}

void run_closure_distributed(distributed_args const& args, global_options const& g) {
    distributed::mpi_control c(grid_of(*g.mpi));
    reporting_on_rank_0(c, [&] { closure_distributed(args, g, c); });
}

namespace {
void apsp_distributed(distributed_args const& args, global_options const& g, control& c) {
    // The type: from the header on rank 0, as the single-process command chooses it.
    std::string type = args.type;
    std::int64_t code = together(c, [&]() -> std::int64_t {
        if (type.empty() && c.rank() == 0) {
            type = input(args.input, &args.read).facts().integral ? "int32" : "fp64";
        }
        return type == "fp32" ? 1 : type == "fp64" ? 2 : 0;
    });
    c.broadcast(&code, sizeof code, 0);
    if (code == 1)
        apsp_typed<float>(args, g, c);
    else if (code == 2)
        apsp_typed<double>(args, g, c);
    else
        apsp_typed<std::int32_t>(args, g, c);
}

void closure_distributed(distributed_args const& args, global_options const& g, control& c) {
    std::optional<distributed::layout_writer> lw;
    if (!args.layout_dir.empty()) lw.emplace(args.layout_dir, c, g.temps);
    std::optional<output_set> outs;
    csr_matrix<std::int32_t> a = together(c, [&] {
        if (c.rank() != 0) return csr_matrix<std::int32_t>();
        outs.emplace(g.temps);
        if (!lw) outs->add(args.output);
        io::read_options ro;
        ro.pattern_only = true;
        return input(args.input, &args.read).matrix<std::int32_t>(ro);
    });
    a = share_graph(c, std::move(a));
    device_setup const dev = setup_device(c, args.device, true);
    check_local_blocks(c, args, dev);
    explain_trace trace;
    distributed::options opt;
    opt.block = args.block;
    opt.panels = dev.panels.get();
    opt.lookahead = args.lookahead;
    opt.blocks = residence_of(args.local_blocks);
    opt.explain = args.explain ? &trace : nullptr;
    set_fault_options(opt, args);
    auto const t0 = std::chrono::steady_clock::now();
    distributed::local_result<std::int32_t> r;
    try {
        r = distributed::closure(a, c, opt);
    } catch (distributed::rank_timeout const&) {
        throw;  // not agreed: main() prints it and ends the job
    } catch (std::exception const& e) {
        fail(c, e.what());
    }
    double const secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (lw) {
        distributed::layout_manifest meta;
        meta.result = "reachability";
        meta.reflexive = args.reflexive;
        bool const refl = args.reflexive;
        write_layout(
            args, g, c, *lw, r, meta, trace,
            [refl](std::int32_t x, bool diag) {
                return x != infinity<std::int32_t>() || (refl && diag);
            },
            "closure", secs, dev.gpu ? "gpu, NCCL" : "cpu, MPI");
        return;
    }
    auto const tg = std::chrono::steady_clock::now();
    dense_matrix<std::int32_t> const full =
        distributed::gather<std::int32_t>(r.local.view(), r.dist, c);
    if (args.explain)
        distributed::detail::explain_output(
            trace, r.dist, c, sizeof(std::int32_t), false,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - tg).count());
    if (c.rank() != 0) return;
    if (args.explain)
        for (auto const& line : trace.lines) fmt::print(stderr, "{}\n", line);
    std::size_t const n = full.rows();
    buffer<std::int64_t> ptr(n + 1);
    std::vector<std::int64_t> cols;
    ptr[0] = 0;
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j)
            if (full(i, j) != infinity<std::int32_t>() || (args.reflexive && i == j))
                cols.push_back(static_cast<std::int64_t>(j));
        ptr[i + 1] = static_cast<std::int64_t>(cols.size());
    }
    buffer<std::int64_t> ci(cols.size());
    std::copy(cols.begin(), cols.end(), ci.data());
    csr_matrix<bool, std::int64_t> const out(n, n, std::move(ptr), std::move(ci), buffer<bool>(),
                                             true, true);
    io::write_options wo;
    wo.pattern = true;
    io::write_matrix_market((*outs)[0], out, wo);
    outs->commit();
    auto const gr = c.grid();
    if (!g.quiet && args.output != "-")
        fmt::print(
            "closure: {} vertices, {} edges, distributed on {} ranks ({} x {}, block {}, {}): "
            "{} pairs, {:.3f} ms ({})\n",
            a.rows(), a.nnz(), c.size(), gr.rows, gr.cols, r.dist.block(),
            dev.gpu ? "gpu, NCCL" : "cpu, MPI", out.nnz(), secs * 1e3, args.output);
}
}  // namespace

}  // namespace kleene::tools

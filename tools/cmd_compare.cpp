// `kleene compare OPERATION ...`: the same operation through kleene and through
// SuiteSparse:GraphBLAS, compared entry by entry (structure and values). Every subcommand runs the
// operation in SuiteSparse (the kleene::graphblas oracle layer; tests/cli/compare.sh checks that
// this program imports the GrB functions). Exit 0 only when the results agree, 1 when they differ
// or an input is invalid, 2 for a usage error.
//
//   mxm A B -s S            C = A (+).(x) B
//   mxv A u -s S            w = A (+).(x) u        (u: a vector or an n x 1 matrix)
//   vxm u A -s S            w = u' (+).(x) A
//   ewise-add A B --op OP   C = A (+) B, union of the structures
//   ewise-mult A B --op OP  C = A (x) B, intersection
//   reduce A --monoid M     w(i) = (+) of row i [--columns: of column i; --scalar: of everything]
//   transpose A             C = A'
//   bfs A --source S        BFS levels from S (1-based) [--parents: both trees checked]
//
// Timings: kleene's is the operation's call; SuiteSparse's is its GrB call and GrB_wait, as the
// oracle measures it (detail::timed), and the conversion of kleene's containers to and from
// GraphBLAS is reported beside it, not hidden in either number.

#include "commands.hpp"

#ifdef KLEENE_HAVE_GRAPHBLAS
#include "files.hpp"
#include "progress.hpp"
#include "semiring_dispatch.hpp"

#include <kleene/algorithms/bfs.hpp>
#include <kleene/graphblas/bfs.hpp>
#include <kleene/graphblas/compare.hpp>
#include <kleene/graphblas/context.hpp>
#include <kleene/graphblas/operations.hpp>
#include <kleene/graphblas/ops.hpp>
#include <kleene/graphblas/traits.hpp>
#include <kleene/io/matrix_market.hpp>
#include <kleene/kleene.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace kleene::tools {
namespace {

struct compare_args {
    std::string op_name;  // the subcommand
    std::string a, b, semiring = "plus_times", op = "plus", monoid = "plus", type;
    double rel_tol = -1;  // < 0: the default of the operation (see tolerance_for)
    int runs = 1;
    std::int64_t source = 0;
    bool columns = false, scalar = false, parents = false;
    read_flags read;
};

using clock_type = std::chrono::steady_clock;
double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

/// The operands (b unused for one): "-" (stdin, at most one) is read once into memory.
struct operands {
    input a, b;
};

/// The value type a comparison runs in when --type is not given: the files' natural type.
std::string default_type(std::vector<input const*> const& files) {
    bool integral = true;
    for (auto const* f : files) integral = integral && f->facts().integral;
    return integral ? "int64" : "fp64";
}

/// Exact unless the operation sums floating-point values in an order the libraries may differ in.
template <class T>
double tolerance_for(compare_args const& args, bool reassociates) {
    if (args.rel_tol >= 0) return args.rel_tol;
    if (!std::is_floating_point_v<T> || !reassociates) return 0.0;
    return sizeof(T) == 4 ? 1e-5 : 1e-12;
}

/// What one side did: its time (median of --runs), and for SuiteSparse the GrB call's share.
struct side {
    double ms = 0;
    double call_ms = 0;  // SuiteSparse: the GrB call and GrB_wait alone
    std::size_t entries = 0;
};

/// Runs kleene's f and the oracle's g --runs times each; keeps the last results.
template <class R, class K, class G>
std::pair<side, side> run_both(compare_args const& args, progress& p, R& mine, R& theirs, K&& k,
                               G&& g) {
    std::vector<double> tk, tg, tc;
    for (int r = 0; r < args.runs; ++r) {
        in_phase(p, "kleene", [&] {
            auto const t0 = clock_type::now();
            k(mine);
            tk.push_back(ms_since(t0));
        });
        in_phase(p, "SuiteSparse:GraphBLAS", [&] {
            explain_trace trace;
            options opt;
            opt.explain = &trace;
            auto const t0 = clock_type::now();
            g(theirs, opt);
            tg.push_back(ms_since(t0));
            tc.push_back(graphblas::traced_ms(trace));
        });
    }
    side a, b;
    a.ms = median(tk);
    b.ms = median(tg);
    b.call_ms = median(tc);
    return {a, b};
}

template <class R>
std::size_t entries_of(R const& r) {
    if constexpr (requires { r.nnz(); })
        return r.nnz();
    else
        return 1;
}

std::string json_escape(std::string const& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20)
            out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else
            out += c;
    }
    return out;
}

/// Prints the report (text or JSON) and fails the command when the results differ.
void report(compare_args const& args, global_options const& g, std::string const& what,
            std::string const& shape, side const& k, side const& gb,
            graphblas::comparison const& cmp, double tol, bool vector_result) {
    auto where = [&](graphblas::mismatch const& m) {
        return vector_result ? fmt::format("({})", m.row + 1)
                             : fmt::format("({}, {})", m.row + 1, m.col + 1);
    };
    std::string diffs;
    for (auto const& m : cmp.first)
        diffs += fmt::format("; {}: kleene {}, SuiteSparse {}", where(m), m.got, m.want);
    if (g.json) {
        std::string first = "[";
        for (auto const& m : cmp.first)
            first += fmt::format("{}{{\"row\": {}, \"col\": {}, \"kleene\": \"{}\", "
                                 "\"graphblas\": \"{}\"}}",
                                 first.size() > 1 ? ", " : "", m.row + 1, vector_result ? 1 : m.col + 1,
                                 json_escape(m.got), json_escape(m.want));
        first += "]";
        fmt::print(
            "{{\"operation\": \"{}\", \"what\": \"{}\", \"shape\": \"{}\", \"library\": \"{}\", "
            "\"kleene_entries\": {}, \"graphblas_entries\": {}, \"compared\": {}, "
            "\"mismatches\": {}, \"equal\": {}, \"rel_tol\": {}, \"runs\": {}, \"kleene_ms\": {:.6f}, "
            "\"graphblas_ms\": {:.6f}, \"graphblas_conversion_ms\": {:.6f}, \"shape_error\": \"{}\", "
            "\"first_mismatches\": {}}}\n",
            args.op_name, json_escape(what), shape, graphblas::library_version(), k.entries,
            gb.entries, cmp.compared, cmp.mismatches, cmp.ok() ? "true" : "false", tol, args.runs,
            k.ms, gb.call_ms, std::max(0.0, gb.ms - gb.call_ms), json_escape(cmp.shape_error), first);
    } else if (!g.quiet) {
        fmt::print("kleene {}: {}, {} entries, {:.3f} ms\n", what, shape, k.entries, k.ms);
        fmt::print("{} {}: {} entries, {:.3f} ms (converting kleene's containers to and from "
                   "GraphBLAS: {:.3f} ms more)\n",
                   graphblas::library_version(), what, gb.entries, gb.call_ms,
                   std::max(0.0, gb.ms - gb.call_ms));
        if (cmp.ok())
            fmt::print("equal: {} entries compared (structure and values, relative tolerance {})\n",
                       cmp.compared, tol);
        else if (!cmp.shape_error.empty())
            fmt::print("DIFFERENT: {}\n", cmp.shape_error);
        else
            fmt::print("DIFFERENT: {} of {} entries differ{}\n", cmp.mismatches, cmp.compared,
                       diffs);
    }
    if (!cmp.ok())
        throw command_failed("kleene and SuiteSparse:GraphBLAS differ: " +
                             (cmp.shape_error.empty()
                                  ? std::to_string(cmp.mismatches) + " of " +
                                        std::to_string(cmp.compared) + " entries" + diffs
                                  : cmp.shape_error));
}

template <class T>
csr_matrix<T> read_matrix(progress& p, input const& in) {
    return in_phase(p, "reading " + in.name(), [&] { return in.matrix<T>(); });
}
template <class T>
sparse_vector<T> read_vector(progress& p, input const& in) {
    return in_phase(p, "reading " + in.name(), [&] { return in.vector<T>(); });
}

std::string shape(std::size_t r, std::size_t c) { return fmt::format("{}x{}", r, c); }

// ---- the products -------------------------------------------------------------------------------

void run_product(compare_args const& args, operands const& in, global_options const& g) {
    std::string const type = args.type.empty() ? default_type({&in.a, &in.b}) : args.type;
    dispatch_semiring(args.semiring, type, [&](auto s) {
        using S = decltype(s);
        using T = typename S::value_type;
        if constexpr (!graphblas::has_grb_semiring<S>) {
            throw command_failed("SuiteSparse:GraphBLAS has no built-in " + args.semiring +
                                 " over " + type + ": nothing to compare with");
        } else {
            progress p(g.quiet || g.json);
            graphblas::ensure_initialized();
            double const tol = tolerance_for<T>(args, !S::idempotent_add);
            std::string const what = args.op_name + " " + args.semiring + "." + type;
            if (args.op_name == "mxm") {
                auto const a = read_matrix<T>(p, in.a);
                auto const b = read_matrix<T>(p, in.b);
                if (a.cols() != b.rows())
                    throw command_failed("mxm: A is " + shape(a.rows(), a.cols()) + ", B is " +
                                         shape(b.rows(), b.cols()) + ": A's columns must equal B's rows");
                csr_matrix<T> mine(a.rows(), b.cols()), theirs(a.rows(), b.cols());
                auto [k, gb] = run_both(
                    args, p, mine, theirs, [&](auto& c) { mxm(c, a, b, s); },
                    [&](auto& c, options const& o) { graphblas::mxm(c, a, b, s, o); });
                k.entries = mine.nnz();
                gb.entries = theirs.nnz();
                auto const cmp = graphblas::compare(mine, theirs, tol);
                p.done();
                report(args, g, what, shape(mine.rows(), mine.cols()), k, gb, cmp, tol, false);
            } else {
                bool const mxv_form = args.op_name == "mxv";
                auto const a = read_matrix<T>(p, mxv_form ? in.a : in.b);
                auto const u = read_vector<T>(p, mxv_form ? in.b : in.a);
                std::size_t const in = mxv_form ? a.cols() : a.rows();
                std::size_t const out = mxv_form ? a.rows() : a.cols();
                if (u.size() != in)
                    throw command_failed(args.op_name + ": the matrix is " +
                                         shape(a.rows(), a.cols()) + ", the vector has " +
                                         std::to_string(u.size()) + " entries (want " +
                                         std::to_string(in) + ")");
                sparse_vector<T> mine(out), theirs(out);
                auto [k, gb] = run_both(
                    args, p, mine, theirs,
                    [&](auto& w) {
                        if (mxv_form)
                            mxv(w, a, u, s);
                        else
                            vxm(w, u, a, s);
                    },
                    [&](auto& w, options const& o) {
                        if (mxv_form)
                            graphblas::mxv(w, a, u, s, o);
                        else
                            graphblas::vxm(w, u, a, s, o);
                    });
                k.entries = mine.nnz();
                gb.entries = theirs.nnz();
                auto const cmp = graphblas::compare(mine, theirs, tol);
                p.done();
                report(args, g, what, "vector of " + std::to_string(out), k, gb, cmp, tol, true);
            }
        }
    });
}

// ---- element-wise, reduce, transpose ------------------------------------------------------------

void run_ewise(compare_args const& args, operands const& in, global_options const& g) {
    std::string const type = args.type.empty() ? default_type({&in.a, &in.b}) : args.type;
    dispatch_type(type, [&](auto t) {
        using T = decltype(t);
        dispatch_op<T>(args.op, [&](auto op) {
            progress p(g.quiet || g.json);
            graphblas::ensure_initialized();
            auto const a = read_matrix<T>(p, in.a);
            auto const b = read_matrix<T>(p, in.b);
            if (a.rows() != b.rows() || a.cols() != b.cols())
                throw command_failed(args.op_name + ": A is " + shape(a.rows(), a.cols()) +
                                     ", B is " + shape(b.rows(), b.cols()) + ": they must match");
            bool const add = args.op_name == "ewise-add";
            csr_matrix<T> mine(a.rows(), a.cols()), theirs(a.rows(), a.cols());
            auto [k, gb] = run_both(
                args, p, mine, theirs,
                [&](auto& c) {
                    if (add)
                        ewise_add(c, op, a, b);
                    else
                        ewise_mult(c, op, a, b);
                },
                [&](auto& c, options const& o) {
                    if (add)
                        graphblas::ewise_add(c, op, a, b, o);
                    else
                        graphblas::ewise_mult(c, op, a, b, o);
                });
            k.entries = mine.nnz();
            gb.entries = theirs.nnz();
            double const tol = tolerance_for<T>(args, false);  // one operation per entry: exact
            auto const cmp = graphblas::compare(mine, theirs, tol);
            p.done();
            report(args, g, args.op_name + " " + args.op + "." + type, shape(a.rows(), a.cols()),
                   k, gb, cmp, tol, false);
        });
    });
}

void run_reduce(compare_args const& args, operands const& in, global_options const& g) {
    std::string const type = args.type.empty() ? default_type({&in.a}) : args.type;
    dispatch_type(type, [&](auto t) {
        using T = decltype(t);
        dispatch_monoid<T>(args.monoid, [&](auto mon) {
            using Mon = decltype(mon);
            progress p(g.quiet || g.json);
            graphblas::ensure_initialized();
            auto const a = read_matrix<T>(p, in.a);
            double const tol = tolerance_for<T>(args, !Mon::idempotent);
            std::string const what = "reduce " + args.monoid + "." + type +
                                     (args.scalar ? " to a scalar"
                                                  : (args.columns ? " of columns" : " of rows"));
            if (args.scalar) {
                T mine{}, theirs{};
                auto [k, gb] = run_both(
                    args, p, mine, theirs, [&](T& x) { x = reduce(mon, a); },
                    [&](T& x, options const& o) { x = graphblas::reduce(mon, a, o); });
                dense_vector<T> dm(1, mine), dt(1, theirs);
                auto const cmp = graphblas::compare(dm, dt, tol);
                p.done();
                report(args, g, what, "scalar", k, gb, cmp, tol, true);
            } else {
                std::size_t const n = args.columns ? a.cols() : a.rows();
                sparse_vector<T> mine(n), theirs(n);
                auto [k, gb] = run_both(
                    args, p, mine, theirs,
                    [&](auto& w) {
                        if (args.columns)
                            reduce(w, mon, transpose(a));
                        else
                            reduce(w, mon, a);
                    },
                    [&](auto& w, options const& o) {
                        if (args.columns)
                            graphblas::reduce(w, mon, transpose(a), o);
                        else
                            graphblas::reduce(w, mon, a, o);
                    });
                k.entries = mine.nnz();
                gb.entries = theirs.nnz();
                auto const cmp = graphblas::compare(mine, theirs, tol);
                p.done();
                report(args, g, what, "vector of " + std::to_string(n), k, gb, cmp, tol, true);
            }
        });
    });
}

void run_transpose(compare_args const& args, operands const& in, global_options const& g) {
    std::string const type = args.type.empty() ? default_type({&in.a}) : args.type;
    dispatch_type(type, [&](auto t) {
        using T = decltype(t);
        progress p(g.quiet || g.json);
        graphblas::ensure_initialized();
        auto const a = read_matrix<T>(p, in.a);
        csr_matrix<T> mine(a.cols(), a.rows()), theirs(a.cols(), a.rows());
        auto [k, gb] = run_both(
            args, p, mine, theirs, [&](auto& c) { transpose(c, a); },
            [&](auto& c, options const& o) { graphblas::transpose(c, a, o); });
        k.entries = mine.nnz();
        gb.entries = theirs.nnz();
        auto const cmp = graphblas::compare(mine, theirs, 0.0);
        p.done();
        report(args, g, "transpose." + type, shape(mine.rows(), mine.cols()), k, gb, cmp, 0.0,
               false);
    });
}

// ---- BFS ----------------------------------------------------------------------------------------

void run_bfs(compare_args const& args, operands const& in, global_options const& g) {
    progress p(g.quiet || g.json);
    graphblas::ensure_initialized();
    io::read_options ro;
    ro.pattern_only = true;
    auto const a = in_phase(p, "reading " + in.a.name(), [&] { return in.a.matrix<bool>(ro); });
    if (a.rows() != a.cols())
        throw command_failed("bfs: the adjacency matrix must be square, not " +
                             shape(a.rows(), a.cols()));
    auto const n = static_cast<std::int64_t>(a.rows());
    if (args.source > n)
        throw command_failed("bfs: source " + std::to_string(args.source) + " is not in 1.." +
                             std::to_string(n));
    auto const src = static_cast<std::size_t>(args.source - 1);
    bool const symmetric = in.a.facts().symmetric;
    bfs_options opt;
    opt.device = device_choice::cpu;
    opt.parents = args.parents;
    opt.symmetric = symmetric;
    graphblas::bfs_oracle const oracle(a, symmetric);
    std::vector<double> tk, tg;
    bfs_result mine;
    graphblas::bfs_oracle_result theirs;
    for (int r = 0; r < args.runs; ++r) {
        in_phase(p, "kleene", [&] {
            auto const t0 = clock_type::now();
            mine = bfs(a, src, opt);
            tk.push_back(ms_since(t0));
        });
        in_phase(p, "SuiteSparse:GraphBLAS", [&] {
            theirs = oracle.run(src, args.parents);
            tg.push_back(theirs.ms);
        });
    }
    // Levels must be equal; parents may differ (any BFS tree is right), so both are checked.
    dense_vector<std::int64_t> lk(mine.level.size()), lg(theirs.level.size());
    std::copy(mine.level.begin(), mine.level.end(), lk.data());
    std::copy(theirs.level.begin(), theirs.level.end(), lg.data());
    auto cmp = graphblas::compare(lk, lg, 0.0);
    p.done();
    std::size_t reached = 0;
    for (auto l : mine.level) reached += l >= 0;
    side k, gb;
    k.ms = median(tk);
    gb.ms = gb.call_ms = median(tg);
    k.entries = reached;
    gb.entries = 0;
    for (auto l : theirs.level) gb.entries += l >= 0;
    if (args.parents) {
        bool const ok_k = graphblas::valid_bfs_tree(a, src, mine.level, mine.parent);
        bool const ok_g = graphblas::valid_bfs_tree(a, src, theirs.level, theirs.parent);
        if (!ok_k || !ok_g)
            cmp.shape_error = std::string("the parent vector of ") +
                              (!ok_k ? (!ok_g ? "both libraries" : "kleene") : "SuiteSparse") +
                              " is not a BFS tree of the levels";
    }
    report(args, g,
           std::string("bfs levels") + (args.parents ? " and parents" : "") + " from " +
               std::to_string(args.source),
           std::to_string(n) + " vertices", k, gb, cmp, 0.0, true);
}

void run_compare(compare_args const& args, global_options const& g) {
    if (args.a == "-" && args.b == "-")
        throw usage_error("both operands are '-': standard input can be read once");
    // b is empty for one operand
    operands const in{input(args.a, &args.read), input(args.b, &args.read)};
    if (args.op_name == "mxm" || args.op_name == "mxv" || args.op_name == "vxm")
        run_product(args, in, g);
    else if (args.op_name == "ewise-add" || args.op_name == "ewise-mult")
        run_ewise(args, in, g);
    else if (args.op_name == "reduce")
        run_reduce(args, in, g);
    else if (args.op_name == "transpose")
        run_transpose(args, in, g);
    else
        run_bfs(args, in, g);
}

}  // namespace

void add_compare_command(CLI::App& app, global_options& g) {
    auto* cmd = app.add_subcommand(
        "compare", "run an operation in kleene and in SuiteSparse:GraphBLAS and compare the results");
    cmd->require_subcommand(1);
    auto add = [&](std::string const& name, std::string const& help,
                   std::vector<std::pair<std::string, std::string>> const& operands) {
        auto args = std::make_shared<compare_args>();
        args->op_name = name;
        auto* sub = cmd->add_subcommand(name, help);
        std::string* slots[] = {&args->a, &args->b};
        for (std::size_t k = 0; k < operands.size(); ++k)
            sub->add_option(operands[k].first, *slots[k], operands[k].second)->required();
        sub->add_option("-t,--type", args->type,
                        "fp32, fp64, int32, int64 or bool (default: int64 for integer and pattern "
                        "files, else fp64)")
            ->check(one_of(type_names));
        sub->add_option("--rel-tol", args->rel_tol,
                        "relative tolerance for floating-point values (default: exact, except "
                        "1e-5 fp32 / 1e-12 fp64 where a sum is reassociated)")
            ->check(number_at_least(0));
        sub->add_option("--runs", args->runs, "time each side this many times (median)")
            ->check(integer_in(1, 1000))
            ->capture_default_str();
        sub->add_flag("--json", g.json, "one JSON object on stdout");
        sub->add_flag("-q,--quiet", g.quiet, "no report; the exit code says it");
        add_read_options(
            sub, args->read, name == "bfs" ? "last" : "error",
            name == "bfs" ? "values are ignored" : "an operation has no policy of its own");
        args->read.command = "compare " + name;
        sub->callback([args, &g] { run_compare(*args, g); });
        return std::pair{sub, args};
    };
    auto semiring_option = [](CLI::App* sub, compare_args& a) {
        sub->add_option("-s,--semiring", a.semiring, "a built-in semiring SuiteSparse also has")
            ->check(one_of(semiring_names))
            ->capture_default_str();
    };
    {
        auto [sub, args] = add(
            "mxm", "C = A (+).(x) B in both libraries",
            {{"A", "left operand (.mtx, .kbin, .el)"}, {"B", "right operand (.mtx, .kbin, .el)"}});
        semiring_option(sub, *args);
    }
    {
        auto [sub, args] =
            add("mxv", "w = A (+).(x) u in both libraries",
                {{"A", "matrix (.mtx, .kbin, .el)"}, {"u", "vector (.mtx, .kbin, .el: n x 1)"}});
        semiring_option(sub, *args);
    }
    {
        auto [sub, args] =
            add("vxm", "w = u' (+).(x) A in both libraries",
                {{"u", "vector (.mtx, .kbin, .el: n x 1)"}, {"A", "matrix (.mtx, .kbin, .el)"}});
        semiring_option(sub, *args);
    }
    for (char const* name : {"ewise-add", "ewise-mult"}) {
        auto [sub, args] = add(
            name,
            std::string(name) == "ewise-add"
                ? "C = A (+) B over the union of the structures"
                : "C = A (x) B over the intersection of the structures",
            {{"A", "left operand (.mtx, .kbin, .el)"}, {"B", "right operand (.mtx, .kbin, .el)"}});
        sub->add_option("--op", args->op, "plus, times, min, max, first, second, pair; lor, land (bool)")
            ->check(one_of(op_names))
            ->capture_default_str();
    }
    {
        auto [sub, args] =
            add("reduce", "w(i) = the monoid's sum of row i", {{"A", "matrix (.mtx, .kbin, .el)"}});
        sub->add_option("--monoid", args->monoid, "plus, times, min, max; lor, land (bool)")
            ->check(one_of(monoid_names))
            ->capture_default_str();
        auto* cols = sub->add_flag("--columns", args->columns, "reduce the columns instead");
        sub->add_flag("--scalar", args->scalar, "reduce every entry to one value")->excludes(cols);
    }
    add("transpose", "C = A'", {{"A", "matrix (.mtx, .kbin, .el)"}});
    {
        auto [sub, args] = add("bfs", "BFS levels from a source against a SuiteSparse vxm/mxv BFS",
                               {{"A", "adjacency matrix (.mtx, .kbin, .el; values ignored)"}});
        sub->add_option("--source", args->source, "source vertex (1-based)")
            ->required()
            ->check(integer_in(1));
        sub->add_flag("--parents", args->parents, "also compute parents (both trees are checked)");
    }
}

}  // namespace kleene::tools

#else  // built without SuiteSparse:GraphBLAS (KLEENE_GRAPHBLAS=OFF, or not found)

namespace kleene::tools {

// The command stays, so that `kleene compare ...` says what is missing, not "unknown command".
void add_compare_command(CLI::App& app, global_options&) {
    auto* cmd = app.add_subcommand(
        "compare", "compare with SuiteSparse:GraphBLAS (not built in: see `kleene compare`)");
    cmd->prefix_command();  // whatever follows belongs to the command that is not there
    cmd->callback([] {
        throw command_failed(
            "compare: this kleene was built without SuiteSparse:GraphBLAS, which `kleene compare` "
            "runs. To enable it: apt-get install libgraphblas-dev, then reconfigure with "
            "-DKLEENE_GRAPHBLAS=ON and rebuild (scripts/setup installs it)");
    });
}

}  // namespace kleene::tools

#endif

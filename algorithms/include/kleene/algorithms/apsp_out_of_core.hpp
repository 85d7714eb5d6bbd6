#pragma once
// APSP and transitive closure past the GPU's memory (docs/performance.md, "APSP out of core"):
// the n x n matrix stays in (page-locked) host memory and streams through the device in blocks.
// Two algorithms, each with a plan chosen by a model of its products and its traffic over the
// host link within the device budget:
//   - blocked Floyd-Warshall (ooc_floyd_warshall.hpp): n / b rounds, each moving the whole
//     matrix in and out once; the only one for the bit-packed Boolean closure;
//   - R-Kleene (ooc_rkleene.hpp): the recursion with its products streamed in output tiles, whose
//     traffic falls with the square root of the device memory (min_plus only).
// apsp_out_of_core runs the one with the lower modelled time unless ooc_options (or the context's
// tune.ooc_method, or a pinned part of one plan) names one; the explain trace
// gives both models. The plan, its options and the device budget: ooc_plan.hpp.

#include <kleene/algorithms/ooc_floyd_warshall.hpp>
#include <kleene/algorithms/ooc_rkleene.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>

namespace kleene {

namespace detail {

/// The algorithm asked for: the option, else the context's tune.ooc_method, else the one whose
/// plan parts are pinned (options or the context's tuning), else automatic.
inline ooc_algorithm ooc_requested(ooc_options const& o) {
    if (o.algorithm != ooc_algorithm::automatic) return o.algorithm;
    tuning const& tune = resolve(o.ctx).tune;
    if (tune.ooc_method != ooc_algorithm::automatic) return tune.ooc_method;
    if (o.block || o.width || o.pass_width || o.panels || tune.ooc_block || tune.ooc_width)
        return ooc_algorithm::floyd_warshall;
    if (o.tile || o.depth || tune.ooc_tile || tune.ooc_depth)
        return ooc_algorithm::rkleene;
    return ooc_algorithm::automatic;
}

/// The plan to run: the requested algorithm's, or the one with the lower modelled time.
template <class T>
ooc_plan choose_ooc_plan(std::size_t n, device_budget const& budget, ooc_options const& o) {
    ooc_algorithm const want = ooc_requested(o);
    ooc_plan rk;
    if (want != ooc_algorithm::floyd_warshall) {
        rk = plan_ooc_rkleene<T>(n, budget.bytes, o);
        if (rk.tile == 0 && want == ooc_algorithm::rkleene)
            throw error("out-of-core: a device budget of " + mib(double(budget.bytes)) +
                        " is too small for " +
                        (o.tile || o.depth ? std::string("the R-Kleene plan pinned by the options")
                                           : std::string("any R-Kleene plan")) +
                        " (64 x 64 tiles need " +
                        mib(double(ooc_rkleene_bytes<T>(64, 64, 1))) + ")");
        if (want == ooc_algorithm::rkleene) return rk;
    }
    ooc_plan fw;
    try {
        fw = plan_floyd_warshall<ooc_dense<T>>(n, budget, o);
    } catch (error const&) {
        if (rk.tile == 0) throw;
        return rk;
    }
    if (rk.tile == 0) return fw;
    // The two models on one basis: Floyd-Warshall's was fitted with the GEMM's general rate,
    // R-Kleene's takes the in-core R-Kleene's (fast paths included); compare both at the
    // latter (checked against runs at n = 16384: docs/lab/performance-history.md).
    ooc_model same = o.model;
    same.gemm_fp32 = same.rkleene_fp32 / same.pipeline_efficiency;
    same.gemm_int32 = same.rkleene_int32 / same.pipeline_efficiency;
    same.gemm_fp64 = same.rkleene_fp64 / same.pipeline_efficiency;
    ooc_plan fw_same = fw;
    double const fw_s = ooc_model_seconds<ooc_dense<T>>(
        fw_same, same, cuda::multiprocessor_count(), ooc_dense<T>::blocks_per_sm());
    if (o.explain)
        o.explain->add("out-of-core: modelled R-Kleene " + std::to_string(rk.seconds).substr(0, 6) +
                       " s, blocked Floyd-Warshall " + std::to_string(fw_s).substr(0, 6) + " s");
    return rk.seconds < fw_s ? rk : fw;
}

}  // namespace detail

/// Min-plus closure of the n x n host view d, in place, through the GPU in blocks (header
/// comment); d's diagonal must already hold min(d(i,i), 0). Throws negative_cycle (naming a
/// vertex whose diagonal entry went negative: the first of the first diagonal block where
/// blocked Floyd-Warshall saw one, in which case it stops there; R-Kleene finishes first); d
/// is then partly updated.
template <class T>
ooc_report apsp_out_of_core(dense_view<T> d, ooc_options const& o = {}) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> ||
                      std::is_same_v<T, std::int32_t>,
                  "out-of-core APSP runs fp32, fp64 and int32");
    detail::require_square("apsp_out_of_core", d.rows, d.cols);
    if (d.ld < d.cols) throw invalid_argument("apsp_out_of_core: leading dimension below cols");
    if (d.rows == 0) return {};
    cuda::require_device();
    detail::device_budget const budget = detail::ooc_budget(o);
    ooc_plan const p = detail::choose_ooc_plan<T>(d.rows, budget, o);
    if (p.algorithm == ooc_algorithm::rkleene) {
        if (o.explain) o.explain->add(detail::ooc_plan_line(d.rows, budget, p));
        return detail::run_ooc_rkleene<T>(d.data, d.rows, d.ld, o, p);
    }
    return detail::run_out_of_core<detail::ooc_dense<T>>(d.data, d.rows, d.ld, o, p, budget);
}

/// Boolean closure A+ (paths of one edge or more) of the n x n bit matrix at `words` (rows of
/// `ld` 64-bit words, bit_matrix.hpp's layout, padding bits zero), in place, by blocked
/// Floyd-Warshall.
inline ooc_report closure_out_of_core(std::uint64_t* words, std::size_t n, std::size_t ld,
                                      ooc_options const& o = {}) {
    if (ld < (n + 63) / 64) throw invalid_argument("closure_out_of_core: rows shorter than n bits");
    if (n == 0) return {};
    cuda::require_device();
    detail::device_budget const budget = detail::ooc_budget(o);
    ooc_plan const p = detail::plan_floyd_warshall<detail::ooc_bits>(n, budget, o);
    return detail::run_out_of_core<detail::ooc_bits>(words, n, ld, o, p, budget);
}

}  // namespace kleene

// kleene::context (context.hpp) and context_from_environment (environment.hpp): per-thread
// defaults, settings that stay in the context they were made in, the OpenMP thread count of the
// CPU kernels, and the KLEENE_* variables that only context_from_environment reads.

#define BOOST_TEST_MODULE context
#include <boost/test/unit_test.hpp>

#include <kleene/algorithms/apsp_out_of_core.hpp>
#include <kleene/environment.hpp>
#include <kleene/kleene.hpp>

#include <omp.h>

#include <atomic>
#include <cstdlib>
#include <thread>

using namespace kleene;

namespace {
std::atomic<int> most_threads{0};

/// x + 1, noting the size of the OpenMP team that computes it.
struct counting_increment {
    using value_type = double;
    double apply(double x) const {
        int const t = omp_get_num_threads();
        int seen = most_threads.load();
        while (t > seen && !most_threads.compare_exchange_weak(seen, t)) {}
        return x + 1;
    }
};

/// The largest team an apply over a big dense matrix ran with, under `ctx`.
int team_of_apply(context* ctx) {
    dense_matrix<double> a(512, 512, 1.0), c(512, 512);
    most_threads = 0;
    apply(c, counting_increment{}, a, {.ctx = ctx});
    BOOST_TEST(c(511, 511) == 2.0);
    return most_threads.load();
}

struct env_var {
    char const* name;
    env_var(char const* n, char const* v) : name(n) { ::setenv(n, v, 1); }
    ~env_var() { ::unsetenv(name); }
};
}  // namespace

BOOST_AUTO_TEST_CASE(default_context_is_per_thread) {
    context& mine = default_context();
    BOOST_TEST(&mine == &default_context());
    context* other = nullptr;
    std::thread([&] { other = &default_context(); }).join();
    BOOST_TEST(other != &mine);
    BOOST_TEST(&resolve(nullptr) == &mine);
}

BOOST_AUTO_TEST_CASE(tuning_stays_in_its_context) {
    context own;
    own.tune.use_cublas = false;
    own.tune.split_k_blocks = 0;
    BOOST_TEST(default_context().tune.use_cublas);
    BOOST_TEST(default_context().tune.split_k_blocks == 128);
    bool seen_in_other_thread = false;
    std::thread([&] { seen_in_other_thread = default_context().tune.use_cublas; }).join();
    BOOST_TEST(seen_in_other_thread);
    context moved = std::move(own);
    BOOST_TEST(!moved.tune.use_cublas);
}

BOOST_AUTO_TEST_CASE(threads_reach_the_cpu_kernels) {
    int const before = omp_get_max_threads();
    context one, three;
    one.set_threads(1);
    three.set_threads(3);
    BOOST_TEST(team_of_apply(&one) == 1);
    BOOST_TEST(team_of_apply(&three) == 3);
    BOOST_TEST(omp_get_max_threads() == before);  // restored after each call
    BOOST_CHECK_THROW(one.set_threads(-1), invalid_argument);
}

BOOST_AUTO_TEST_CASE(workspace_supplied_or_grown) {
    context c;
    BOOST_TEST(!c.workspace_supplied());
    BOOST_TEST(c.workspace_bytes() == 0u);
    alignas(256) static unsigned char fake[4096];  // never touched: no product runs here
    c.set_workspace(fake, sizeof fake);
    BOOST_TEST(c.workspace_supplied());
    BOOST_TEST(c.workspace_bytes() == sizeof fake);
    c.set_workspace(nullptr, 123);
    BOOST_TEST(!c.workspace_supplied());
    BOOST_TEST(c.workspace_bytes() == 0u);
}

BOOST_AUTO_TEST_CASE(out_of_core_choice_follows_the_context) {
    context c;
    ooc_options o;
    o.ctx = &c;
    BOOST_TEST((detail::ooc_requested(o) == ooc_algorithm::automatic));
    c.tune.ooc_method = ooc_algorithm::rkleene;
    BOOST_TEST((detail::ooc_requested(o) == ooc_algorithm::rkleene));
    c.tune.ooc_method = ooc_algorithm::automatic;
    c.tune.ooc_block = 1024;  // a pinned Floyd-Warshall part picks it
    BOOST_TEST((detail::ooc_requested(o) == ooc_algorithm::floyd_warshall));
    o.ctx = nullptr;  // the default context has none of that
    BOOST_TEST((detail::ooc_requested(o) == ooc_algorithm::automatic));
    c.tune.max_device_bytes = 160 << 10;
    BOOST_TEST(detail::device_cap(0, &c) == std::size_t(160) << 10);
    BOOST_TEST(detail::device_cap(4096, &c) == 4096u);
    BOOST_TEST(detail::device_cap(0, nullptr) == 0u);
}

BOOST_AUTO_TEST_CASE(environment_read_by_one_function) {
    {
        env_var a("KLEENE_MAX_DEVICE_BYTES", "160K"), b("KLEENE_OOC_ALGORITHM", "fw"),
            c("KLEENE_OOC_TILE", "2K"), d("KLEENE_OOC_PROFILE", "1"),
            e("KLEENE_OOC_TIMELINE", "/tmp/t.txt"), f("KLEENE_BFS_LOOP_BLOCKS", "4");
        // The library's own calls do not see them: only a context built from them does.
        BOOST_TEST(default_context().tune.max_device_bytes == 0u);
        BOOST_TEST(detail::device_cap(0, nullptr) == 0u);
        context const ctx = context_from_environment();
        BOOST_TEST(ctx.tune.max_device_bytes == std::size_t(160) << 10);
        BOOST_TEST((ctx.tune.ooc_method == ooc_algorithm::floyd_warshall));
        BOOST_TEST(ctx.tune.ooc_tile == 2048u);
        BOOST_TEST(ctx.tune.ooc_profile);
        BOOST_TEST(ctx.tune.ooc_timeline == "/tmp/t.txt");
        BOOST_TEST(ctx.tune.bfs_loop_blocks == 4);
    }
    {
        env_var a("KLEENE_OOC_PROFILE", "0"), b("KLEENE_BFS_LOOP_BLOCKS", "3"),
            c("KLEENE_OOC_ALGORITHM", "auto");
        context const ctx = context_from_environment();
        BOOST_TEST(!ctx.tune.ooc_profile);
        BOOST_TEST(ctx.tune.bfs_loop_blocks == 2);
        BOOST_TEST((ctx.tune.ooc_method == ooc_algorithm::automatic));
        BOOST_TEST(ctx.tune.max_device_bytes == 0u);
    }
    {
        env_var a("KLEENE_OOC_ALGORITHM", "dijkstra");
        BOOST_CHECK_THROW(context_from_environment(), invalid_argument);
    }
    {
        env_var a("KLEENE_MAX_DEVICE_BYTES", "lots");
        BOOST_CHECK_THROW(context_from_environment(), invalid_argument);
    }
}

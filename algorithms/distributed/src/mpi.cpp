#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <kleene/algorithms/distributed/mpi.hpp>
#include <string>
#include <vector>

namespace kleene::distributed {

namespace {
void check(int rc, char const* what) {
    if (rc == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw error(std::string(what) + " failed: " + std::string(msg, static_cast<std::size_t>(len)));
}
// MPI counts are int: large messages go in pieces of at most 1 GiB.
constexpr std::size_t piece = std::size_t(1) << 30;

/// How long waits may take (control::set_wait_limit), and whether one already timed out.
struct wait_policy {
    double limit = 0;
    bool broken = false;

    void usable(char const* what) const {
        if (broken)
            throw rank_timeout(std::string(what) +
                               ": not started, an earlier wait for the other ranks timed out");
    }
    /// Ends the requests: MPI_Waitall without a limit; with one, polls them until the limit. (No
    /// yield between polls: MPI_Testall progresses the operation as MPI_Waitall would, and Open
    /// MPI yields the core there when ranks share cores; a yield of our own made 4 ranks on 2
    /// cores 7-15% slower, n = 2048.)
    void finish(std::vector<MPI_Request>& reqs, char const* what, std::string const& where) {
        if (reqs.empty()) return;
        int const n = static_cast<int>(reqs.size());
        if (limit <= 0) {
            check(MPI_Waitall(n, reqs.data(), MPI_STATUSES_IGNORE), what);
            return;
        }
        auto const t0 = std::chrono::steady_clock::now();
        for (;;) {
            int done = 0;
            check(MPI_Testall(n, reqs.data(), &done, MPI_STATUSES_IGNORE), what);
            if (done) return;
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
                limit) {
                broken = true;
                char secs[32];
                std::snprintf(secs, sizeof secs, "%.3g", limit);
                throw rank_timeout(std::string("no answer within ") + secs +
                                   " s from the other ranks in " + what + " " + where +
                                   ": a rank is stuck or was lost");
            }
        }
    }
};
}  // namespace

mpi_environment::mpi_environment(int& argc, char**& argv) {
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    // Errors come back as codes (and become exceptions) instead of aborting the job.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

mpi_environment::~mpi_environment() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

int mpi_environment::rank() const {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int mpi_environment::size() const {
    int s = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

void mpi_environment::abort(int code) noexcept {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

struct mpi_control::impl {
    process_grid g;
    wait_policy wait;
    int rank = 0, size = 1;
    MPI_Comm world = MPI_COMM_NULL, row = MPI_COMM_NULL, col = MPI_COMM_NULL;
    std::vector<int> host;  // host index of every rank
    int hosts = 1, local_rank = 0;

    ~impl() {
        if (wait.broken) return;  // operations may be in flight on them; the job ends anyway
        for (MPI_Comm* c : {&row, &col, &world})
            if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
    }
    MPI_Comm of(axis a) const { return a == axis::row ? row : col; }
    static char const* name(axis a) {
        return a == axis::row ? "along its process row" : "along its process column";
    }
    /// One MPI_Allreduce of x over the world, within the wait limit.
    template <class V>
    V allreduce(V x, MPI_Datatype type, MPI_Op op) {
        wait.usable("MPI_Allreduce");
        if (wait.limit <= 0) {
            check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, type, op, world), "MPI_Allreduce");
            return x;
        }
        std::vector<MPI_Request> r(1, MPI_REQUEST_NULL);
        check(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, type, op, world, r.data()), "MPI_Iallreduce");
        wait.finish(r, "MPI_Allreduce", "over all ranks");
        return x;
    }
};

mpi_control::mpi_control(process_grid g) : p_(std::make_unique<impl>()) {
    p_->g = g;
    check(MPI_Comm_dup(MPI_COMM_WORLD, &p_->world), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(p_->world, MPI_ERRORS_RETURN);
    MPI_Comm_rank(p_->world, &p_->rank);
    MPI_Comm_size(p_->world, &p_->size);
    if (g.size() != p_->size)
        throw invalid_argument("mpi_control: a " + std::to_string(g.rows) + " x " +
                               std::to_string(g.cols) + " grid for " + std::to_string(p_->size) +
                               " ranks");
    check(MPI_Comm_split(p_->world, g.row_of(p_->rank), g.col_of(p_->rank), &p_->row),
          "MPI_Comm_split (process rows)");
    check(MPI_Comm_split(p_->world, g.col_of(p_->rank), g.row_of(p_->rank), &p_->col),
          "MPI_Comm_split (process columns)");
    // Hosts: the ranks that share memory with each other; a host is named by its lowest rank.
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(p_->world, MPI_COMM_TYPE_SHARED, p_->rank, MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    MPI_Comm_rank(node, &p_->local_rank);
    int leader = p_->rank;
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    std::vector<int> leaders(static_cast<std::size_t>(p_->size));
    check(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, p_->world),
          "MPI_Allgather");
    std::vector<int> distinct = leaders;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    p_->hosts = static_cast<int>(distinct.size());
    p_->host.resize(leaders.size());
    for (std::size_t r = 0; r < leaders.size(); ++r)
        p_->host[r] = static_cast<int>(
            std::lower_bound(distinct.begin(), distinct.end(), leaders[r]) - distinct.begin());
}

mpi_control::~mpi_control() = default;
int mpi_control::rank() const {
    return p_->rank;
}
int mpi_control::size() const {
    return p_->size;
}
process_grid mpi_control::grid() const {
    return p_->g;
}
int mpi_control::hosts() const {
    return p_->hosts;
}
int mpi_control::host_of(int r) const {
    return p_->host.at(static_cast<std::size_t>(r));
}
int mpi_control::local_rank() const {
    return p_->local_rank;
}

std::int64_t mpi_control::allreduce_min(std::int64_t x) {
    return p_->allreduce(x, MPI_INT64_T, MPI_MIN);
}
std::int64_t mpi_control::allreduce_max(std::int64_t x) {
    return p_->allreduce(x, MPI_INT64_T, MPI_MAX);
}
std::int64_t mpi_control::allreduce_sum(std::int64_t x) {
    return p_->allreduce(x, MPI_INT64_T, MPI_SUM);
}
double mpi_control::allreduce_max(double x) {
    return p_->allreduce(x, MPI_DOUBLE, MPI_MAX);
}

namespace {
void bcast(MPI_Comm c, void* data, std::size_t bytes, int root, wait_policy& w, char const* where) {
    w.usable("MPI_Bcast");
    auto* p = static_cast<unsigned char*>(data);
    std::vector<MPI_Request> r;
    for (std::size_t off = 0; off < bytes; off += piece) {
        int const len = static_cast<int>(std::min(piece, bytes - off));
        if (w.limit <= 0) {
            check(MPI_Bcast(p + off, len, MPI_BYTE, root, c), "MPI_Bcast");
            continue;
        }
        r.assign(1, MPI_REQUEST_NULL);
        check(MPI_Ibcast(p + off, len, MPI_BYTE, root, c, r.data()), "MPI_Ibcast");
        w.finish(r, "MPI_Bcast", where);
    }
}
}  // namespace

void mpi_control::broadcast(void* data, std::size_t bytes, int root) {
    bcast(p_->world, data, bytes, root, p_->wait, "over all ranks");
}
void mpi_control::broadcast(axis a, void* data, std::size_t bytes, int root) {
    bcast(p_->of(a), data, bytes, root, p_->wait, impl::name(a));
}
void mpi_control::set_wait_limit(double seconds) {
    p_->wait.limit = seconds > 0 ? seconds : 0;
}
double mpi_control::wait_limit() const {
    return p_->wait.limit;
}
namespace {
/// MPI_Ibcast in pieces, completed together.
class mpi_pending final : public pending {
  public:
    mpi_pending(MPI_Comm c, void* data, std::size_t bytes, int root, wait_policy& w,
                char const* where)
        : wait_(&w), where_(where) {
        w.usable("MPI_Ibcast");
        auto* p = static_cast<unsigned char*>(data);
        for (std::size_t off = 0; off < bytes; off += piece) {
            int const len = static_cast<int>(std::min(piece, bytes - off));
            reqs_.push_back(MPI_REQUEST_NULL);
            int const rc = MPI_Ibcast(p + off, len, MPI_BYTE, root, c, &reqs_.back());
            if (rc != MPI_SUCCESS) {
                reqs_.pop_back();
                wait_quietly();
                check(rc, "MPI_Ibcast");
            }
        }
    }
    ~mpi_pending() override { wait_quietly(); }
    bool test() override {
        int done = 0;
        check(MPI_Testall(static_cast<int>(reqs_.size()), reqs_.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
        return done != 0;
    }
    void wait() override {
        wait_->usable("MPI_Ibcast");
        wait_->finish(reqs_, "MPI_Ibcast", where_);
    }

  private:
    void wait_quietly() noexcept {
        // After a timeout some partner will not come: the job is to be aborted, not waited on.
        if (!reqs_.empty() && !wait_->broken)
            MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
    }
    std::vector<MPI_Request> reqs_;
    wait_policy* wait_;
    char const* where_;
};
}  // namespace

std::unique_ptr<pending> mpi_control::ibroadcast(axis a, void* data, std::size_t bytes, int root) {
    return std::make_unique<mpi_pending>(p_->of(a), data, bytes, root, p_->wait, impl::name(a));
}

void mpi_control::send(void const* data, std::size_t bytes, int to) {
    p_->wait.usable("MPI_Send");
    auto const* p = static_cast<unsigned char const*>(data);
    std::string const where = "to rank " + std::to_string(to);
    std::vector<MPI_Request> r;
    for (std::size_t off = 0; off < bytes; off += piece) {
        int const len = static_cast<int>(std::min(piece, bytes - off));
        r.assign(1, MPI_REQUEST_NULL);
        check(MPI_Isend(p + off, len, MPI_BYTE, to, 0, p_->world, r.data()), "MPI_Isend");
        p_->wait.finish(r, "MPI_Send", where);
    }
}
void mpi_control::recv(void* data, std::size_t bytes, int from) {
    p_->wait.usable("MPI_Recv");
    auto* p = static_cast<unsigned char*>(data);
    std::string const where = "from rank " + std::to_string(from);
    std::vector<MPI_Request> r;
    for (std::size_t off = 0; off < bytes; off += piece) {
        int const len = static_cast<int>(std::min(piece, bytes - off));
        r.assign(1, MPI_REQUEST_NULL);
        check(MPI_Irecv(p + off, len, MPI_BYTE, from, 0, p_->world, r.data()), "MPI_Irecv");
        p_->wait.finish(r, "MPI_Recv", where);
    }
}

}  // namespace kleene::distributed

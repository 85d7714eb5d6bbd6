// The JIT's front without a device (kleene/cuda/jit.hpp): NVRTC compiles every kernel family for
// built-in and user semirings, the on-disk cache finds, checks and rebuilds entries, concurrent
// processes share a directory, and bad semirings get clear errors. Needs the CUDA build and NVRTC
// (CI has both, but no GPU); the launches are tests/gpu/test_jit_gpu.cpp's.
#define BOOST_TEST_MODULE jit
#include <boost/test/unit_test.hpp>

#include <kleene/cuda/jit.hpp>
#include <kleene/error.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace jit = kleene::cuda::jit;

namespace {

/// NVRTC present (true), or the test is skipped with the reason (a build without CUDA, or a
/// machine without NVRTC: then the error must name NVRTC).
bool have_nvrtc() {
#if !defined(KLEENE_HAVE_CUDA)
    BOOST_CHECK_THROW(jit::builtin("min_plus", "float"), kleene::no_device);
    BOOST_TEST_MESSAGE("built without CUDA: JIT test skipped (the entry points throw no_device)");
    return false;
#else
    try {
        BOOST_TEST(jit::nvrtc_version() >= 11000);
        return true;
    } catch (kleene::device_error const& e) {
        BOOST_TEST(std::string(e.what()).find("NVRTC") != std::string::npos);
        BOOST_TEST_MESSAGE("no NVRTC on this machine: JIT test skipped: " << e.what());
        return false;
    }
#endif
}

struct temp_dir {
    fs::path path;
    temp_dir() {
        path = fs::temp_directory_path() / ("kleene-jit-test-" + std::to_string(::getpid()));
        fs::remove_all(path);
    }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::vector<fs::path> entries() const {
        std::vector<fs::path> out;
        if (fs::exists(path))
            for (auto const& e : fs::directory_iterator(path)) out.push_back(e.path());
        return out;
    }
};

jit::semiring_source max_times_f32() {
    jit::semiring_source s;
    s.name = "max_times_user";
    s.value_type = "float";
    s.zero = "0.0f";
    s.one = "1.0f";
    s.add = "a > b ? a : b";
    s.mul = "a * b";
    s.idempotent_add = true;
    return s;
}

bool has_elf_magic(std::vector<char> const& cubin) {
    return cubin.size() > 4 && cubin[0] == 0x7f && cubin[1] == 'E' && cubin[2] == 'L' &&
           cubin[3] == 'F';
}

}  // namespace

BOOST_AUTO_TEST_CASE(semiring_text_and_bad_semirings) {
    if (!have_nvrtc()) return;
    auto s = max_times_f32();
    std::string const text = jit::semiring_text(s);
    BOOST_TEST(text.find("a > b ? a : b") != std::string::npos);
    BOOST_TEST(text.find("idempotent_add = true") != std::string::npos);
    BOOST_TEST(jit::semiring_text(jit::builtin("min_plus", "f32")).find("kleene::min_plus<float>") !=
               std::string::npos);
    BOOST_CHECK_THROW(jit::builtin("min_minus", "float"), kleene::invalid_argument);
    BOOST_TEST(jit::semiring_text(jit::compose("max", "times", "float"))
                   .find("kleene::semiring<kleene::max_monoid<float>, kleene::times_op<float>>") !=
               std::string::npos);
    BOOST_TEST(jit::semiring_text(jit::compose("max", "plus", "int64"))
                   .find("kleene::plus_sat_op<std::int64_t, true>") != std::string::npos);
    BOOST_TEST(jit::compose("min", "plus", "double").idempotent_add);
    BOOST_TEST(!jit::compose("plus", "min", "double").idempotent_add);
    BOOST_CHECK_THROW(jit::compose("minus", "times", "float"), kleene::invalid_argument);
    BOOST_CHECK_THROW(jit::compose("max", "divide", "float"), kleene::invalid_argument);
    BOOST_CHECK_THROW(jit::builtin("min_plus", "complex"), kleene::invalid_argument);
    auto bad = s;
    bad.name = "has space";
    BOOST_CHECK_THROW(jit::semiring_text(bad), kleene::invalid_argument);
    bad = s;
    bad.mul.clear();
    BOOST_CHECK_THROW(jit::semiring_text(bad), kleene::invalid_argument);
    bad = s;
    bad.value_type = "uint16_t";
    BOOST_CHECK_THROW(jit::semiring_text(bad), kleene::invalid_argument);
    BOOST_CHECK_THROW(jit::compile(jit::family::spmv, s, "int16_t", 90, ""), kleene::invalid_argument);
    BOOST_CHECK_THROW(jit::compile(jit::family::spmv, s, "int32_t", 7, ""), kleene::invalid_argument);
}

BOOST_AUTO_TEST_CASE(compile_error_carries_the_nvrtc_log) {
    if (!have_nvrtc()) return;
    auto s = max_times_f32();
    s.mul = "a ** b";  // not C++
    try {
        (void)jit::compile(jit::family::spmv, s, "int32_t", 90, "");
        BOOST_FAIL("a semiring that does not compile must throw");
    } catch (kleene::invalid_argument const& e) {
        std::string const what = e.what();
        BOOST_TEST(what.find("max_times_user") != std::string::npos);
        BOOST_TEST(what.find("error") != std::string::npos);  // NVRTC's log
    }
}

BOOST_AUTO_TEST_CASE(every_family_compiles_for_builtin_and_user_semirings) {
    if (!have_nvrtc()) return;
    std::vector<jit::semiring_source> semirings = {max_times_f32(), jit::builtin("min_plus", "float"),
                                                   jit::compose("max", "second", "int32"),
                                                   jit::builtin("plus_times", "double"),
                                                   jit::builtin("max_plus", "int32_t"),
                                                   jit::builtin("plus_pair", "int64_t")};
    // SpMV, SpGEMM and the closure's kernels for every semiring; the GEMM, whose four kernels
    // take seconds to compile, for the user semiring over float and plus_times over double (a
    // 4-byte and an 8-byte type).
    for (std::size_t i = 0; i < semirings.size(); ++i)
        for (auto f :
             {jit::family::spmv, jit::family::spgemm, jit::family::gemm, jit::family::closure})
            for (char const* index : {"int32_t", "int64_t"}) {
                auto const& s = semirings[i];
                if (f == jit::family::gemm && i != 0 && i != 3) break;
                jit::report r;
                auto const cubin = jit::compile(f, s, index, 90, "", &r);
                BOOST_TEST(has_elf_magic(cubin), s.name);
                BOOST_TEST((r.from == jit::report::origin::compiled));
                BOOST_TEST(r.compile_ms > 0);
                BOOST_TEST(r.file.empty());
                BOOST_TEST(r.key.size() == 32u);
                BOOST_TEST_MESSAGE(s.name << ": " << jit::describe(r));
                if (f == jit::family::gemm || f == jit::family::closure)
                    break;  // gemm and closure have no index type
            }
}

BOOST_AUTO_TEST_CASE(disk_cache_hit_corruption_and_keys) {
    if (!have_nvrtc()) return;
    temp_dir dir;
    auto const s = max_times_f32();
    jit::report first, second;
    auto const a = jit::compile(jit::family::spmv, s, "int32_t", 90, dir.path.string(), &first);
    BOOST_TEST((first.from == jit::report::origin::compiled));
    BOOST_TEST(fs::exists(first.file));
    BOOST_TEST(dir.entries().size() == 1u);  // no temporary left behind
    auto const b = jit::compile(jit::family::spmv, s, "int32_t", 90, dir.path.string(), &second);
    BOOST_TEST((second.from == jit::report::origin::disk));
    BOOST_TEST(second.compile_ms == 0);
    BOOST_TEST(second.file == first.file);
    BOOST_TEST((a == b));
    BOOST_TEST_MESSAGE(jit::describe(first) << " | " << jit::describe(second));

    // Everything the kernels depend on changes the key: the semiring's text, the index type,
    // the architecture.
    auto other = s;
    other.mul = "a * b + 0.0f";
    jit::report r;
    (void)jit::compile(jit::family::spmv, other, "int32_t", 90, dir.path.string(), &r);
    BOOST_TEST(r.key != first.key);
    (void)jit::compile(jit::family::spmv, s, "int64_t", 90, dir.path.string(), &r);
    BOOST_TEST(r.key != first.key);
    (void)jit::compile(jit::family::spmv, s, "int32_t", 80, dir.path.string(), &r);
    BOOST_TEST(r.key != first.key);
    BOOST_TEST(dir.entries().size() == 4u);

    // A flipped byte, a truncated entry, an empty file: each detected, rebuilt, and said so.
    auto damage = [&](auto&& how) {
        how(first.file);
        jit::report d;
        auto const c = jit::compile(jit::family::spmv, s, "int32_t", 90, dir.path.string(), &d);
        BOOST_TEST((d.from == jit::report::origin::compiled));
        BOOST_TEST(d.note.find("rebuilt") != std::string::npos, d.note);
        BOOST_TEST((c == a));
        jit::report again;
        (void)jit::compile(jit::family::spmv, s, "int32_t", 90, dir.path.string(), &again);
        BOOST_TEST((again.from == jit::report::origin::disk));
    };
    damage([](fs::path const& p) {
        std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(fs::file_size(p) / 2));
        f.put('\x5a');
    });
    damage([](fs::path const& p) { fs::resize_file(p, fs::file_size(p) - 100); });
    damage([](fs::path const& p) { std::ofstream(p, std::ios::trunc); });
    // A huge file in the entry's place is not read (a sparse file: no disk used), and rebuilt.
    fs::resize_file(first.file, std::uintmax_t(1) << 32);
    jit::report huge;
    auto const h = jit::compile(jit::family::spmv, s, "int32_t", 90, dir.path.string(), &huge);
    BOOST_TEST((huge.from == jit::report::origin::compiled));
    BOOST_TEST(huge.note.find("4294967296 bytes") != std::string::npos, huge.note);
    BOOST_TEST((h == a));
    BOOST_TEST(fs::file_size(first.file) < (std::uintmax_t(1) << 20));
}

BOOST_AUTO_TEST_CASE(concurrent_processes_share_one_directory) {
    if (!have_nvrtc()) return;
    temp_dir dir;
    auto const s = jit::builtin("min_plus", "float");
    constexpr int processes = 4;
    std::vector<pid_t> children;
    for (int i = 0; i < processes; ++i) {
        pid_t const pid = ::fork();
        BOOST_REQUIRE(pid >= 0);
        if (pid == 0) {
            int code = 0;
            try {
                auto const c = jit::compile(jit::family::gemm, s, "int32_t", 90, dir.path.string());
                code = has_elf_magic(c) ? 0 : 2;
            } catch (...) {
                code = 3;
            }
            ::_exit(code);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        BOOST_REQUIRE(::waitpid(pid, &status, 0) == pid);
        BOOST_TEST(WIFEXITED(status));
        BOOST_TEST(WEXITSTATUS(status) == 0);
    }
    // One whole entry, no temporaries, and it reads back from the cache.
    BOOST_TEST(dir.entries().size() == 1u);
    jit::report r;
    (void)jit::compile(jit::family::gemm, s, "int32_t", 90, dir.path.string(), &r);
    BOOST_TEST((r.from == jit::report::origin::disk));
}

BOOST_AUTO_TEST_CASE(unwritable_cache_still_compiles) {
    if (!have_nvrtc()) return;
    temp_dir dir;
    fs::create_directories(dir.path.parent_path());
    std::ofstream(dir.path) << "a file where the directory should be";
    jit::report r;
    auto const c = jit::compile(jit::family::spmv, max_times_f32(), "int32_t", 90,
                                (dir.path / "cache").string(), &r);
    BOOST_TEST(has_elf_magic(c));
    BOOST_TEST(r.note.find("could not") != std::string::npos, r.note);
    fs::remove(dir.path);
}

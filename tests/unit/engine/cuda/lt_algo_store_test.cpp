// The persisted cuBLASLt algorithm choices: a choice stored for one problem is read back by another process (a fresh
// store on the same directory) word for word, and never for another shape, type, epilogue, alignment, library or
// device; damaged files read as misses, and with the cache off nothing is kept. On a GPU (skipped without one), a
// compiled linear's timed choice lands in the kernel cache directory and the product is right.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "cuda/device_context.h"
#include "cuda/driver.h"
#include "cuda/lt_algo_store.h"

namespace {

namespace fs = std::filesystem;
using eng::cuda::Epilogue;
using eng::cuda::GemmType;
using eng::cuda::LtAlgoKey;
using eng::cuda::LtAlgoStore;
using eng::cuda::LtAlgoWords;

LtAlgoKey b5Linear() {
    LtAlgoKey key;
    key.library = "130000";
    key.device = "NVIDIA H100 80GB HBM3 sm_90";
    key.type = GemmType::Float32;
    key.m = 8;
    key.n = 256;
    key.k = 256;
    key.epilogue = Epilogue::Bias;
    return key;
}

const LtAlgoWords kWords = {0x0123456789abcdefull, 0, 1, 0xffffffffffffffffull, 42, 7, 0x8000000000000000ull, 3};

class LtAlgoStoreTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cwb_lt_algo_store_test_" + std::to_string(std::random_device{}()));
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST(LtAlgoFormat, EncodesEveryWordAsHexAndRejectsAnythingElse) {
    const std::string text = eng::cuda::encodeLtAlgo(kWords);
    EXPECT_EQ(text.substr(0, 21), "cublasLt algorithm 1\n");
    EXPECT_NE(text.find("\n0123456789abcdef\n0000000000000000\n0000000000000001\nffffffffffffffff\n"), std::string::npos) << text;
    EXPECT_EQ(eng::cuda::decodeLtAlgo(text), kWords);
    EXPECT_FALSE(eng::cuda::decodeLtAlgo(text.substr(0, text.size() - 1)).has_value());              // truncated
    EXPECT_FALSE(eng::cuda::decodeLtAlgo(text + "0000000000000000\n").has_value());                  // a ninth word
    std::string badDigit = text;
    badDigit[21] = 'g';
    EXPECT_FALSE(eng::cuda::decodeLtAlgo(badDigit).has_value());
    EXPECT_FALSE(eng::cuda::decodeLtAlgo("cublasLt algorithm 2\n" + text.substr(21)).has_value());   // another format
}

TEST(LtAlgoFormat, KeyNamesEveryFieldThatDecidesTheChoice) {
    const std::string text = eng::cuda::ltAlgoKeyText(b5Linear());
    for (const char* part : {"library 130000", "device NVIDIA H100 80GB HBM3 sm_90", "type float32", "m 8 n 256 k 256", "epilogue bias",
                             "alignment weight 16 x 16 out 16 bias 16"})
        EXPECT_NE(text.find(part), std::string::npos) << part << " in " << text;
}

TEST_F(LtAlgoStoreTest, AnotherProcessReadsTheChoiceOfTheSameProblemOnly) {
    LtAlgoStore(dir_).store(b5Linear(), kWords);
    const LtAlgoStore reader(dir_);
    EXPECT_EQ(reader.load(b5Linear()), kWords);
    std::vector<LtAlgoKey> others(8, b5Linear());
    others[0].m = 16;
    others[1].type = GemmType::BFloat16;
    others[2].epilogue = Epilogue::ReluBias;
    others[3].alignX = 8;
    others[4].library = "130001";
    others[5].device = "NVIDIA H200 sm_90";
    others[6].alignBias = 4;
    others[7].k = 512;
    for (const LtAlgoKey& other : others) EXPECT_FALSE(reader.load(other).has_value()) << eng::cuda::ltAlgoKeyText(other);
    // A later choice for the same problem replaces the first.
    LtAlgoWords changed = kWords;
    changed[4] = 43;
    LtAlgoStore(dir_).store(b5Linear(), changed);
    EXPECT_EQ(reader.load(b5Linear()), changed);
}

TEST_F(LtAlgoStoreTest, DamagedFilesAreMissesAndNoDirectoryKeepsNothing) {
    const LtAlgoStore store(dir_);
    store.store(b5Linear(), kWords);
    const fs::path file = store.disk().pathFor(eng::cuda::ltAlgoKeyText(b5Linear()));
    ASSERT_TRUE(fs::exists(file));
    EXPECT_EQ(file.extension(), ".ltalgo");
    fs::resize_file(file, fs::file_size(file) - 5);
    EXPECT_FALSE(store.load(b5Linear()).has_value());
    const LtAlgoStore off{fs::path()};
    off.store(b5Linear(), kWords);
    EXPECT_FALSE(off.load(b5Linear()).has_value());
}

TEST(LtAlgoStoreOnGpu, ATimedChoiceIsKeptInTheKernelCacheDirectory) {
    if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA: " << eng::cuda::driverStatus().reason;
    const fs::path dir = eng::kernel_cache::defaultKernelCacheDir();
    if (dir.empty()) GTEST_SKIP() << "the kernel cache is off";
    auto& device = eng::cuda::DeviceContext::get(0);
    constexpr int m = 8, n = 256, k = 256;  // B5's first linear: small enough to be timed
    std::vector<float> x(m * k), weight(n * k), bias(n), out(m * n);
    for (int i = 0; i < m * k; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i % 5) / 4;
    for (int i = 0; i < n * k; ++i) weight[static_cast<size_t>(i)] = static_cast<float>(i % 7) / 8;
    for (int j = 0; j < n; ++j) bias[static_cast<size_t>(j)] = static_cast<float>(j) / 4;
    auto upload = [&](const std::vector<float>& host) {
        void* d = device.allocate(host.size() * sizeof(float));
        device.copyHostToDevice(d, host.data(), host.size() * sizeof(float));
        return d;
    };
    void *dx = upload(x), *dw = upload(weight), *db = upload(bias), *dout = upload(out);
    eng::cuda::LinearCall call;
    call.m = m;
    call.n = n;
    call.k = k;
    call.x = dx;
    call.weight = dw;
    call.bias = db;
    call.out = dout;
    call.epilogue = Epilogue::Bias;
    eng::cuda::linearLt(0, call);
    device.copyDeviceToHost(out.data(), dout, out.size() * sizeof(float));
    for (int r = 0; r < m; ++r)
        for (int j = 0; j < n; ++j) {
            double expected = bias[static_cast<size_t>(j)];
            for (int i = 0; i < k; ++i) expected += double(x[static_cast<size_t>(r * k + i)]) * weight[static_cast<size_t>(j * k + i)];
            ASSERT_NEAR(out[static_cast<size_t>(r * n + j)], expected, 1e-3) << r << ", " << j;  // exact products, float sums
        }
    for (void* d : {dx, dw, db, dout}) device.deallocate(d);
    int stored = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".ltalgo") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (text.find("m 8 n 256 k 256\nepilogue bias\n") != std::string::npos && text.find("cublasLt algorithm 1\n") != std::string::npos) ++stored;
    }
    EXPECT_EQ(stored, 1);
}

}  // namespace

// The cuBLAS prewarm (cuda/blas.h) against the end of the process: a CUDA program that exits while the prewarm
// thread is still loading or starting cuBLAS ends cleanly (it once crashed there: cuBLAS's teardown ran before the
// join), also when another thread made the context, and a child of fork() made meanwhile exits without hanging.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "cuda/blas.h"
#include "cuda/device_context.h"
#include "cuda/driver.h"

namespace {

using namespace eng;

class BlasPrewarmExit : public ::testing::Test {
protected:
    void SetUp() override {
        if (!cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << cuda::driverStatus().reason;
        if (cuda::blasPrewarmLevel() < 1) GTEST_SKIP() << "CWB_BLAS_PREWARM=0: no prewarm at context creation";
        // A fresh process for each case (a re-executed test binary), whose context is made by the case itself.
        GTEST_FLAG_SET(death_test_style, "threadsafe");
    }
};

// Exits at once after the context is made: the prewarm is loading libcublas or starting its handles.
TEST_F(BlasPrewarmExit, MainThreadExitsWhileThePrewarmRuns) {
    for (int round = 0; round < 3; ++round)
        EXPECT_EXIT(
            {
                cuda::DeviceContext::get(0);
                std::exit(0);
            },
            ::testing::ExitedWithCode(0), "")
            << "round " << round;
}

// Another thread makes the context (and starts the prewarm); the main thread then uses the device and exits.
TEST_F(BlasPrewarmExit, ContextMadeOnAnotherThread) {
    EXPECT_EXIT(
        {
            std::thread([] { cuda::DeviceContext::get(0); }).join();
            cuda::DeviceContext::get(0);
            std::exit(0);
        },
        ::testing::ExitedWithCode(0), "");
}

// fork() while the prewarm runs waits for it, so the child (which has no copy of the thread) can exit: without that
// it would join a thread that is not there, or wait for the loader's lock that thread held.
TEST_F(BlasPrewarmExit, ChildOfForkExits) {
    EXPECT_EXIT(
        {
            cuda::DeviceContext::get(0);
            const pid_t child = fork();
            if (child == 0) {
                alarm(30);  // a hang fails instead of blocking the test
                std::exit(3);
            }
            int status = 0;
            const bool exited = child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 3;
            std::exit(exited ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

}  // namespace

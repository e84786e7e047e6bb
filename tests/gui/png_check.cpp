// Checks that a workbench screenshot shows something: its size, how much of it differs from the background,
// how many colours it has, and that given colours (the status colours of compile ids) appear in it.
// Usage: cwb_png_check FILE.png --min-size W H --min-lit F --min-colours N [--expect-colour R G B MIN_PIXELS]...
#include <stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

struct ExpectedColour {
    int red = 0;
    int green = 0;
    int blue = 0;
    long minPixels = 1;
};

struct Limits {
    int minWidth = 0;
    int minHeight = 0;
    double minLit = 0;
    long minColours = 0;
    std::vector<ExpectedColour> colours;
};

bool near(const unsigned char* pixel, int red, int green, int blue, int tolerance) {
    return std::abs(pixel[0] - red) <= tolerance && std::abs(pixel[1] - green) <= tolerance &&
           std::abs(pixel[2] - blue) <= tolerance;
}

bool parseArguments(int argc, char** argv, Limits& limits) {
    for (int i = 2; i < argc; ++i) {
        std::string flag = argv[i];
        auto need = [&](int count) { return i + count < argc; };
        if (flag == "--min-size" && need(2)) {
            limits.minWidth = std::atoi(argv[++i]);
            limits.minHeight = std::atoi(argv[++i]);
        } else if (flag == "--min-lit" && need(1)) {
            limits.minLit = std::atof(argv[++i]);
        } else if (flag == "--min-colours" && need(1)) {
            limits.minColours = std::atol(argv[++i]);
        } else if (flag == "--expect-colour" && need(4)) {
            ExpectedColour colour;
            colour.red = std::atoi(argv[++i]);
            colour.green = std::atoi(argv[++i]);
            colour.blue = std::atoi(argv[++i]);
            colour.minPixels = std::atol(argv[++i]);
            limits.colours.push_back(colour);
        } else {
            std::fprintf(stderr, "png_check: unknown or incomplete option %s\n", flag.c_str());
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    Limits limits;
    if (argc < 2 || !parseArguments(argc, argv, limits)) return 2;
    int width = 0;
    int height = 0;
    int channels = 0;
    std::unique_ptr<unsigned char, void (*)(void*)> pixels(stbi_load(argv[1], &width, &height, &channels, 3), stbi_image_free);
    if (!pixels) {
        std::fprintf(stderr, "png_check: %s: not a readable PNG\n", argv[1]);
        return 1;
    }
    size_t count = static_cast<size_t>(width) * static_cast<size_t>(height);
    // The background is the most common colour; "lit" pixels are those clearly different from it.
    std::map<unsigned, long> histogram;
    for (size_t p = 0; p < count; ++p) {
        const unsigned char* pixel = pixels.get() + p * 3;
        ++histogram[(unsigned(pixel[0]) << 16) | (unsigned(pixel[1]) << 8) | pixel[2]];
    }
    unsigned background = 0;
    long backgroundCount = 0;
    for (const auto& [colour, n] : histogram) {
        if (n <= backgroundCount) continue;
        background = colour;
        backgroundCount = n;
    }
    long lit = 0;
    std::vector<long> found(limits.colours.size(), 0);
    for (size_t p = 0; p < count; ++p) {
        const unsigned char* pixel = pixels.get() + p * 3;
        if (!near(pixel, int(background >> 16), int((background >> 8) & 255), int(background & 255), 24)) ++lit;
        for (size_t c = 0; c < limits.colours.size(); ++c)
            if (near(pixel, limits.colours[c].red, limits.colours[c].green, limits.colours[c].blue, 6)) ++found[c];
    }
    double litFraction = static_cast<double>(lit) / static_cast<double>(count);
    std::printf("%s: %dx%d, %.1f%% differs from the background, %zu colours\n", argv[1], width, height,
                litFraction * 100, histogram.size());
    bool ok = true;
    if (width < limits.minWidth || height < limits.minHeight) {
        std::fprintf(stderr, "png_check: %dx%d is smaller than %dx%d\n", width, height, limits.minWidth, limits.minHeight);
        ok = false;
    }
    if (litFraction < limits.minLit) {
        std::fprintf(stderr, "png_check: only %.2f%% of the pixels differ from the background (want %.2f%%)\n",
                     litFraction * 100, limits.minLit * 100);
        ok = false;
    }
    if (static_cast<long>(histogram.size()) < limits.minColours) {
        std::fprintf(stderr, "png_check: %zu colours, want at least %ld\n", histogram.size(), limits.minColours);
        ok = false;
    }
    for (size_t c = 0; c < limits.colours.size(); ++c) {
        if (found[c] >= limits.colours[c].minPixels) continue;
        std::fprintf(stderr, "png_check: colour %d,%d,%d: %ld pixel(s), want %ld\n", limits.colours[c].red,
                     limits.colours[c].green, limits.colours[c].blue, found[c], limits.colours[c].minPixels);
        ok = false;
    }
    return ok ? 0 : 1;
}

// A minimal X11 drag source for tests: drops files on a window through the XDND protocol, as a file manager
// does (XdndEnter, XdndPosition, XdndDrop, then serves the text/uri-list selection), and waits for XdndFinished.
// Usage: cwb_xdnd_drop WINDOW_TITLE FILE... [--at X Y] [--timeout SECONDS]   (exit 0: the window accepted it)
// --at: where in the window to let go (window pixels; default its middle). The pointer moves there too, as in
// a real drag, since the window may ask the pointer where the drop landed.
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

constexpr long kOurXdndVersion = 5;

struct Atoms {
    Atom aware, enter, position, status, drop, finished, selection, actionCopy, uriList, targets, netWmName, utf8;

    explicit Atoms(Display* display)
        : aware(XInternAtom(display, "XdndAware", False)),
          enter(XInternAtom(display, "XdndEnter", False)),
          position(XInternAtom(display, "XdndPosition", False)),
          status(XInternAtom(display, "XdndStatus", False)),
          drop(XInternAtom(display, "XdndDrop", False)),
          finished(XInternAtom(display, "XdndFinished", False)),
          selection(XInternAtom(display, "XdndSelection", False)),
          actionCopy(XInternAtom(display, "XdndActionCopy", False)),
          uriList(XInternAtom(display, "text/uri-list", False)),
          targets(XInternAtom(display, "TARGETS", False)),
          netWmName(XInternAtom(display, "_NET_WM_NAME", False)),
          utf8(XInternAtom(display, "UTF8_STRING", False)) {}
};

std::optional<std::string> windowTitle(Display* display, const Atoms& atoms, Window window) {
    Atom type = None;
    int format = 0;
    unsigned long count = 0;
    unsigned long remaining = 0;
    unsigned char* data = nullptr;
    if (XGetWindowProperty(display, window, atoms.netWmName, 0, 1024, False, atoms.utf8, &type, &format, &count,
                           &remaining, &data) == Success && data) {
        std::string title(reinterpret_cast<char*>(data), count);
        XFree(data);
        return title;
    }
    char* name = nullptr;
    if (XFetchName(display, window, &name) && name) {
        std::string title(name);
        XFree(name);
        return title;
    }
    return std::nullopt;
}

/// The XDND version the window speaks (its XdndAware property), or 0 when it takes no drops.
long xdndVersion(Display* display, const Atoms& atoms, Window window) {
    Atom type = None;
    int format = 0;
    unsigned long count = 0;
    unsigned long remaining = 0;
    unsigned char* data = nullptr;
    long version = 0;
    if (XGetWindowProperty(display, window, atoms.aware, 0, 1, False, XA_ATOM, &type, &format, &count, &remaining,
                           &data) == Success && data) {
        if (count == 1) version = static_cast<long>(*reinterpret_cast<Atom*>(data));
        XFree(data);
    }
    return version;
}

Window findWindow(Display* display, const Atoms& atoms, Window parent, const std::string& title) {
    if (windowTitle(display, atoms, parent) == title && xdndVersion(display, atoms, parent) > 0) return parent;
    Window root = 0;
    Window parentOfParent = 0;
    Window* children = nullptr;
    unsigned int count = 0;
    if (!XQueryTree(display, parent, &root, &parentOfParent, &children, &count)) return 0;
    Window found = 0;
    for (unsigned int i = 0; i < count && !found; ++i) found = findWindow(display, atoms, children[i], title);
    if (children) XFree(children);
    return found;
}

/// file:// URIs, one per line with CRLF as RFC 2483 asks, bytes outside the unreserved set percent-encoded.
std::string uriList(const std::vector<std::string>& paths) {
    std::string list;
    for (const std::string& path : paths) {
        list += "file://";
        for (unsigned char c : std::filesystem::absolute(path).lexically_normal().string()) {
            if (std::isalnum(c) || std::strchr("/-._~", c)) {
                list += static_cast<char>(c);
            } else {
                char escaped[4];
                std::snprintf(escaped, sizeof escaped, "%%%02X", c);
                list += escaped;
            }
        }
        list += "\r\n";
    }
    return list;
}

void sendClientMessage(Display* display, Window target, Atom type, const long (&data)[5]) {
    XEvent event{};
    event.xclient.type = ClientMessage;
    event.xclient.display = display;
    event.xclient.window = target;
    event.xclient.message_type = type;
    event.xclient.format = 32;
    for (int i = 0; i < 5; ++i) event.xclient.data.l[i] = data[i];
    XSendEvent(display, target, False, NoEventMask, &event);
    XFlush(display);
}

/// Answers a request for the dragged data: the URI list, or the list of targets we offer.
void serveSelection(Display* display, const Atoms& atoms, const XSelectionRequestEvent& request, const std::string& uris) {
    XEvent reply{};
    reply.xselection.type = SelectionNotify;
    reply.xselection.display = display;
    reply.xselection.requestor = request.requestor;
    reply.xselection.selection = request.selection;
    reply.xselection.target = request.target;
    reply.xselection.time = request.time;
    reply.xselection.property = None;
    Atom property = request.property != None ? request.property : request.target;
    if (request.target == atoms.uriList) {
        XChangeProperty(display, request.requestor, property, atoms.uriList, 8, PropModeReplace,
                        reinterpret_cast<const unsigned char*>(uris.data()), static_cast<int>(uris.size()));
        reply.xselection.property = property;
    } else if (request.target == atoms.targets) {
        Atom offered[] = {atoms.targets, atoms.uriList};
        XChangeProperty(display, request.requestor, property, XA_ATOM, 32, PropModeReplace,
                        reinterpret_cast<const unsigned char*>(offered), 2);
        reply.xselection.property = property;
    }
    XSendEvent(display, request.requestor, False, NoEventMask, &reply);
    XFlush(display);
}

int fail(const char* message) {
    std::fprintf(stderr, "cwb_xdnd_drop: %s\n", message);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> paths;
    std::string title;
    double timeoutSeconds = 30;
    std::optional<std::pair<int, int>> dropAt;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            timeoutSeconds = std::atof(argv[++i]);
        } else if (std::strcmp(argv[i], "--at") == 0 && i + 2 < argc) {
            dropAt = std::pair<int, int>{std::atoi(argv[i + 1]), std::atoi(argv[i + 2])};
            i += 2;
        } else if (title.empty()) {
            title = argv[i];
        } else {
            paths.emplace_back(argv[i]);
        }
    }
    if (title.empty() || paths.empty()) return fail("usage: cwb_xdnd_drop WINDOW_TITLE FILE... [--at X Y] [--timeout SECONDS]");
    Display* display = XOpenDisplay(nullptr);
    if (!display) return fail("cannot open the X display");
    Atoms atoms(display);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    auto timedOut = [&] { return std::chrono::steady_clock::now() > deadline; };

    // The window may still be starting: look for it until the deadline.
    Window root = DefaultRootWindow(display);
    Window target = 0;
    while (!(target = findWindow(display, atoms, root, title))) {
        if (timedOut()) return fail("no XDND-aware window with that title appeared");
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    long version = std::min(kOurXdndVersion, xdndVersion(display, atoms, target));

    // The drag source: an unmapped window that owns the XdndSelection and receives the target's replies.
    Window source = XCreateSimpleWindow(display, root, 0, 0, 1, 1, 0, 0, 0);
    XSetSelectionOwner(display, atoms.selection, source, CurrentTime);
    if (XGetSelectionOwner(display, atoms.selection) != source) return fail("cannot own the XdndSelection");

    // Where to let go, in root coordinates as XdndPosition wants.
    XWindowAttributes attributes{};
    XGetWindowAttributes(display, target, &attributes);
    std::pair<int, int> at = dropAt.value_or(std::pair<int, int>{attributes.width / 2, attributes.height / 2});
    XWarpPointer(display, None, target, 0, 0, 0, 0, at.first, at.second);
    int x = 0;
    int y = 0;
    Window child = 0;
    XTranslateCoordinates(display, target, root, at.first, at.second, &x, &y, &child);

    const long sourceId = static_cast<long>(source);
    sendClientMessage(display, target, atoms.enter, {sourceId, version << 24, static_cast<long>(atoms.uriList), 0, 0});
    sendClientMessage(display, target, atoms.position,
                      {sourceId, 0, (static_cast<long>(x) << 16) | y, CurrentTime, static_cast<long>(atoms.actionCopy)});

    std::string uris = uriList(paths);
    bool dropped = false;
    while (!timedOut()) {
        if (!XPending(display)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            continue;
        }
        XEvent event{};
        XNextEvent(display, &event);
        if (event.type == SelectionRequest) {
            serveSelection(display, atoms, event.xselectionrequest, uris);
        } else if (event.type == ClientMessage && event.xclient.message_type == atoms.status && !dropped) {
            if (!(event.xclient.data.l[1] & 1)) return fail("the window refused the drop (no text/uri-list?)");
            sendClientMessage(display, target, atoms.drop, {sourceId, 0, CurrentTime, 0, 0});
            dropped = true;
        } else if (event.type == ClientMessage && event.xclient.message_type == atoms.finished) {
            // XDND 5 says bit 0 of l[1] tells whether the target took the data; GLFW 3.3 puts the number of
            // bytes it read there, so any non-zero value means accepted.
            bool accepted = version < 5 || event.xclient.data.l[1] != 0;
            std::printf("dropped %zu file(s) on '%s': %s\n", paths.size(), title.c_str(), accepted ? "accepted" : "rejected");
            XDestroyWindow(display, source);
            XCloseDisplay(display);
            return accepted ? 0 : 1;
        }
    }
    return fail(dropped ? "the window took the drop but never sent XdndFinished" : "the window never answered XdndPosition");
}

// The `tessel` command as a function, so that tests can run it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace tessel::cli {

inline constexpr int kExitFailure = 1;  // a kernel failed verification, a run failed
inline constexpr int kExitUsage = 2;    // bad command line
inline constexpr int kExitNoGpu = 3;    // the command needs a GPU and none is visible

// args[0] is the program name. Returns the process exit code.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tessel::cli

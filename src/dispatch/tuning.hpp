// Internal: the tuned choice for a call, from the tuning file (read once).
#pragma once

#include <tessel/tessel.hpp>

#include <string>

namespace tessel {

// The kernel the tuning file names for exactly these sizes, ops and
// precision in this alignment class, or "" when it names none.
std::string tuned_kernel(const GemmArgs& args, bool aligned);

}  // namespace tessel

// How much a command prints: the one scale shared by the logger and the search's progress.
#pragma once

namespace galapagos::util {

enum class verbosity { quiet, normal, verbose };

}  // namespace galapagos::util

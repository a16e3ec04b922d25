// Turning errno values into Status: the one home for it in every layer.
#pragma once

#include <string>
#include <string_view>

#include "ordo/status.h"

namespace ordo::base {

// strerror text of `err`, thread-safe.
std::string errno_text(int err);

// True for the errno values that mean "no room": ENOSPC, EDQUOT, EFBIG.
bool is_no_space_errno(int err);

// IOError "<what>: <strerror(err)>" carrying errno `err`.
Status os_error(std::string_view what, int err);

// Full "<what>: <strerror(err)>" when is_no_space_errno(err), else os_error(what, err).
Status write_error(std::string_view what, int err);

}  // namespace ordo::base

#include "oar/core/errors.h"

namespace oar {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "InvalidArgument";
    case ErrorCode::kInvalidType:
      return "InvalidType";
    case ErrorCode::kOutOfRange:
      return "OutOfRange";
    case ErrorCode::kNotFound:
      return "NotFound";
    case ErrorCode::kUnimplemented:
      return "Unimplemented";
    case ErrorCode::kPreconditionNotMet:
      return "PreconditionNotMet";
    case ErrorCode::kResourceExhausted:
      return "ResourceExhausted";
    case ErrorCode::kFatal:
      return "Fatal";
  }
  return "Unknown";
}

void Error::Prepend(const std::string& prefix) {
  if (msg_.compare(0, prefix.size(), prefix) != 0) msg_.insert(0, prefix);
}

namespace detail {
void ThrowWithExpectation(Error err, const std::string& expectation) {
  err.Append(" [" + expectation + "]");
  throw err;
}
}  // namespace detail

}  // namespace oar

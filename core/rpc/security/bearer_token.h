#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace synaptic::rpc {

// "authorization: Bearer <token>" (RFC 6750) is what grpcurl -H, curl and
// most gRPC tooling send, so operators can probe a node by hand.
inline constexpr std::string_view kAuthorizationKey = "authorization";

// The header value a client sends for `token`.
std::string bearerHeaderValue(std::string_view token);

// Equal strings, compared without an early exit: how long it takes depends on
// the length of `presented` only, never on how many leading characters of the
// secret `expected` a caller guessed right. An empty `expected` matches nothing.
bool constantTimeEquals(std::string_view presented, std::string_view expected);

enum class TokenVerdict { Valid, Missing, Wrong };

// Judges one call's "authorization" value (nullopt: the call had none) against
// the expected token. A value that is not a bearer credential counts as wrong.
TokenVerdict judgeAuthorization(std::optional<std::string_view> header, std::string_view expected);

// "no token" / "wrong token", for log lines.
std::string_view reasonText(TokenVerdict verdict);

} // namespace synaptic::rpc

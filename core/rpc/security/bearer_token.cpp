#include "bearer_token.h"

#include <cctype>

namespace synaptic::rpc {

namespace {

constexpr std::string_view kBearerScheme = "Bearer ";

// The scheme name is case-insensitive (RFC 7235 §2.1).
bool startsWithBearer(std::string_view value) {
    if (value.size() < kBearerScheme.size())
        return false;
    for (std::size_t i = 0; i < kBearerScheme.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(value[i])) !=
            std::tolower(static_cast<unsigned char>(kBearerScheme[i])))
            return false;
    }
    return true;
}

} // namespace

std::string bearerHeaderValue(std::string_view token) {
    return std::string(kBearerScheme) + std::string(token);
}

bool constantTimeEquals(std::string_view presented, std::string_view expected) {
    if (expected.empty())
        return false;
    // volatile keeps the compiler from turning the loop into an early-exit
    // memcmp; the modulo walks the secret without reading past its end.
    volatile unsigned char diff = presented.size() != expected.size() ? 1 : 0;
    for (std::size_t i = 0; i < presented.size(); ++i)
        diff = diff | static_cast<unsigned char>(presented[i] ^ expected[i % expected.size()]);
    return diff == 0;
}

TokenVerdict judgeAuthorization(std::optional<std::string_view> header, std::string_view expected) {
    if (!header || header->empty())
        return TokenVerdict::Missing;
    if (!startsWithBearer(*header))
        return TokenVerdict::Wrong;
    const std::string_view token = header->substr(kBearerScheme.size());
    if (token.empty())
        return TokenVerdict::Missing;
    return constantTimeEquals(token, expected) ? TokenVerdict::Valid : TokenVerdict::Wrong;
}

std::string_view reasonText(TokenVerdict verdict) {
    switch (verdict) {
    case TokenVerdict::Valid:
        return "valid token";
    case TokenVerdict::Missing:
        return "no token";
    case TokenVerdict::Wrong:
        break;
    }
    return "wrong token";
}

} // namespace synaptic::rpc

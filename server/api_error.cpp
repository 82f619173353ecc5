#include "api_error.h"

#include <nlohmann/json.hpp>

namespace hearth::server {

std::string ApiError::to_json() const {
    nlohmann::json e{{"message", message}, {"type", type}, {"param", nullptr}, {"code", nullptr}};
    if (!param.empty()) e["param"] = param;
    if (!code.empty()) e["code"] = code;
    return nlohmann::json{{"error", e}}.dump();
}

ApiError bad_request(std::string message, std::string param, std::string code) {
    return {400, std::move(message), "invalid_request_error", std::move(param), std::move(code)};
}

ApiError unauthorized(std::string message) {
    return {401, std::move(message), "invalid_request_error", {}, "invalid_api_key"};
}

ApiError model_not_found(const std::string& model) {
    return {404, "The model '" + model + "' does not exist", "invalid_request_error", "model",
            "model_not_found"};
}

ApiError queue_full(std::string message) {
    return {429, std::move(message), "requests", {}, "rate_limit_exceeded"};
}

ApiError unavailable(std::string message) {
    return {503, std::move(message), "server_error", {}, "service_unavailable"};
}

ApiError body_too_large(size_t limit_bytes) {
    return {413,
            "The request body is larger than the server's limit of " + std::to_string(limit_bytes) +
                " bytes",
            "invalid_request_error",
            {},
            "request_too_large"};
}

}  // namespace hearth::server

// Errors in OpenAI's shape: {"error": {"message", "type", "param", "code"}} with the HTTP status
// the OpenAI API uses for the same case, so client libraries raise their usual exceptions.
#pragma once

#include <string>

namespace hearth::server {

struct ApiError {
    int status = 400;
    std::string message;
    std::string type = "invalid_request_error";
    std::string param;  // empty: null
    std::string code;   // empty: null

    std::string to_json() const;
};

ApiError bad_request(std::string message, std::string param = {}, std::string code = {});
ApiError unauthorized(std::string message);
ApiError model_not_found(const std::string& model);
ApiError queue_full(std::string message);     // 429
ApiError unavailable(std::string message);    // 503
ApiError body_too_large(size_t limit_bytes);  // 413

}  // namespace hearth::server

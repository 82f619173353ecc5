#include "demo_chat.h"

#include <QDir>

#include "chat_store.h"

namespace hearth::app {

using hearth::storage::ChatStore;
using hearth::storage::Role;

qint64 seedDemoChat(const QString& dataDir, QString* error) {
    QDir().mkpath(dataDir);
    auto opened = ChatStore::openOrRecover(ChatStore::databasePath(dataDir));
    if (!opened) {
        if (error) *error = QString::fromStdString(opened.error);
        return 0;
    }
    ChatStore& s = *opened.store;
    auto chat = s.createChat({QStringLiteral("Reverse a string in C++"),
                              QString(),
                              QStringLiteral("stories260K"),
                              QString(),
                              {}});
    if (!chat) {
        if (error) *error = QString::fromStdString(chat.error_message());
        return 0;
    }
    auto user =
        s.addMessage(*chat, 0, Role::User, QStringLiteral("How do I reverse a string in C++?"));
    const QString answer = QStringLiteral(
        "## Reversing a string\n\n"
        "Use **`std::reverse`** from `<algorithm>`; it works in place:\n\n"
        "```cpp\n"
        "#include <algorithm>\n#include <string>\n\n"
        "std::string reversed(std::string s) {\n"
        "    std::reverse(s.begin(), s.end());\n"
        "    return s;\n"
        "}\n"
        "```\n\n"
        "| Approach | Copies | Notes |\n|---|---|---|\n"
        "| `std::reverse` | no | in place |\n"
        "| `std::string(s.rbegin(), s.rend())` | yes | one line |\n\n"
        "1. Take the string by value.\n2. Reverse it.\n3. Return it.\n");
    auto reply = user ? s.beginAssistantMessage(*user) : Result<qint64>(user.status());
    hearth::storage::GenerationStats st;
    st.generatedTokens = 112;
    st.tokensPerSecond = 41.5;
    st.stopReason = QStringLiteral("eos");
    if (!reply || !s.finishMessage(*reply, answer, st)) {
        if (error) *error = QStringLiteral("could not write the demo chat");
        return 0;
    }
    return *chat;
}

}  // namespace hearth::app

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AboutDialog</name>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="11"/>
        <source>About Hearth</source>
        <translation>关于 Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="49"/>
        <source>Version %1</source>
        <translation>版本 %1</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="58"/>
        <source>Local language models with their own inference engine. MIT licensed.</source>
        <translation>在本机运行的语言模型，自带推理引擎。MIT 许可。</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="64"/>
        <source>Commit</source>
        <translation>提交</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="66"/>
        <source>Build</source>
        <translation>构建</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="68"/>
        <source>Compiler</source>
        <translation>编译器</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="70"/>
        <source>Qt</source>
        <translation>Qt</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="72"/>
        <source>Backends built</source>
        <translation>已构建的后端</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="76"/>
        <source>Backends found</source>
        <translation>已找到的后端</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="87"/>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
</context>
<context>
    <name>ApiServerSection</name>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="20"/>
        <source>Local API server</source>
        <translation>本地 API 服务器</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="21"/>
        <source>Lets other programs on this computer use the loaded model through the OpenAI API (base URL below). Only this computer can connect.</source>
        <translation>让本机上的其他程序通过 OpenAI API（基础 URL 见下方）使用已加载的模型。只有本机可以连接。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="24"/>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="24"/>
        <location filename="../ui/Settings/ApiServerSection.qml" line="74"/>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="27"/>
        <source>Run the local API server</source>
        <translation>运行本地 API 服务器</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="33"/>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="39"/>
        <location filename="../ui/Settings/ApiServerSection.qml" line="52"/>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="40"/>
        <source>Optional. When set, programs must send it as &quot;Authorization: Bearer KEY&quot;.</source>
        <translation>可选。设置后，程序必须以“Authorization: Bearer KEY”发送它。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="49"/>
        <source>No key</source>
        <translation>无密钥</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="67"/>
        <source>Running at %1 · 1 active request</source>
        <translation>运行于 %1 · 1 个活动请求</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="68"/>
        <source>Running at %1 · %2 active requests</source>
        <translation>运行于 %1 · %2 个活动请求</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="71"/>
        <source>Not running: %1</source>
        <translation>未运行：%1</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="73"/>
        <source>Starts when a model is loaded.</source>
        <translation>加载模型后启动。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="79"/>
        <source>Copy base URL</source>
        <translation>复制基础 URL</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ApiServerSection.qml" line="80"/>
        <source>Copy the API server&apos;s base URL</source>
        <translation>复制 API 服务器的基础 URL</translation>
    </message>
</context>
<context>
    <name>AppBanners</name>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="93"/>
        <source>The new backend setting takes effect when the model is loaded again.</source>
        <translation>新的后端设置将在重新加载模型后生效。</translation>
    </message>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="97"/>
        <source>Reload now</source>
        <translation>立即重新加载</translation>
    </message>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="44"/>
        <source>Load anyway</source>
        <translation>仍然加载</translation>
    </message>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="65"/>
        <source>Moved “%1” to the trash.</source>
        <translation>已将“%1”移到回收站。</translation>
    </message>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="68"/>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="88"/>
        <source>The new backend and 4-bit weights settings take effect when the model is loaded again.</source>
        <translation>新的后端和 4 位权重设置将在重新加载模型后生效。</translation>
    </message>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="90"/>
        <source>The 4-bit weights setting takes effect when the model is loaded again.</source>
        <translation>4 位权重设置将在重新加载模型后生效。</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/Model/AppBanners.qml" line="120"/>
        <source>%n more message(s)</source>
        <translation>
            <numerusform>还有 %n 条消息</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="121"/>
        <source>Show fewer</source>
        <translation>收起</translation>
    </message>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="87"/>
        <source>The changed settings take effect when the model is loaded again.</source>
        <translation>更改的设置将在重新加载模型后生效。</translation>
    </message>
    <message>
        <location filename="../ui/Model/AppBanners.qml" line="92"/>
        <source>The “Beyond the training length” setting takes effect when the model is loaded again.</source>
        <translation>“超出训练长度”设置将在重新加载模型后生效。</translation>
    </message>
</context>
<context>
    <name>AppInfo</name>
    <message>
        <location filename="../app/core/app_info.cpp" line="27"/>
        <source>the automatic choice</source>
        <translation>自动选择</translation>
    </message>
    <message>
        <location filename="../app/core/app_info.cpp" line="28"/>
        <source>usable</source>
        <translation>可用</translation>
    </message>
</context>
<context>
    <name>Banner</name>
    <message>
        <location filename="../ui/Components/Banner.qml" line="27"/>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../ui/Components/Banner.qml" line="27"/>
        <source>Notice</source>
        <translation>提示</translation>
    </message>
    <message>
        <location filename="../ui/Components/Banner.qml" line="56"/>
        <source>Dismiss message</source>
        <translation>关闭消息</translation>
    </message>
    <message>
        <location filename="../ui/Components/Banner.qml" line="55"/>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>ChatExport</name>
    <message>
        <location filename="../app/chat/chat_export.cpp" line="167"/>
        <source>Imported chat</source>
        <translation>导入的对话</translation>
    </message>
</context>
<context>
    <name>ChatHeader</name>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="19"/>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="30"/>
        <source>%1 / %2 tokens</source>
        <translation>%1 / %2 词元</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="33"/>
        <source>Context used: %1 of %2 tokens</source>
        <translation>已用上下文：%1 / %2 词元</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="38"/>
        <source>Chat settings</source>
        <translation>对话设置</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="39"/>
        <source>This chat&apos;s system prompt and sampling</source>
        <translation>此对话的系统提示词和采样设置</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="53"/>
        <source>Export ▾</source>
        <translation>导出 ▾</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="54"/>
        <source>Save this chat as Markdown, text or JSON, or copy it</source>
        <translation>将此对话保存为 Markdown、纯文本或 JSON，或复制它</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="60"/>
        <source>Markdown (.md)</source>
        <translation>Markdown (.md)</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="65"/>
        <source>Plain text (.txt)</source>
        <translation>纯文本 (.txt)</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="70"/>
        <source>JSON, every branch (.json)</source>
        <translation>JSON，包含所有分支 (.json)</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatHeader.qml" line="77"/>
        <source>Copy conversation</source>
        <translation>复制对话</translation>
    </message>
</context>
<context>
    <name>ChatListItem</name>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="26"/>
        <source>Chat %1</source>
        <translation>对话 %1</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="27"/>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="43"/>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="48"/>
        <source>Rename (F2)</source>
        <translation>重命名 (F2)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="53"/>
        <source>Delete (Del)</source>
        <translation>删除 (Del)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="90"/>
        <source>A reply is being written</source>
        <translation>正在生成回复</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="98"/>
        <source>New name for the chat</source>
        <translation>对话的新名称</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="118"/>
        <source>Rename chat</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="120"/>
        <source>Rename</source>
        <translation>重命名</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="131"/>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/ChatListItem.qml" line="133"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
</context>
<context>
    <name>ChatSettingsPanel</name>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="36"/>
        <source>Chat settings</source>
        <translation>对话设置</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="38"/>
        <source>This chat</source>
        <translation>此对话</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="44"/>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="45"/>
        <source>Applies from the next message. New chats start with the one in Settings.</source>
        <translation>从下一条消息起生效。新对话使用“设置”中的系统提示词。</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="58"/>
        <source>No system prompt</source>
        <translation>无系统提示词</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="59"/>
        <source>System prompt of this chat</source>
        <translation>此对话的系统提示词</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="64"/>
        <source>Presets</source>
        <translation>预设</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="65"/>
        <source>Named system prompts: pick one for this chat, or save this chat&apos;s under a name.</source>
        <translation>命名的系统提示词：为此对话选择一个，或将此对话的提示词以某个名称保存。</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="71"/>
        <source>Pick a preset…</source>
        <translation>选择预设…</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="71"/>
        <source>No presets yet</source>
        <translation>尚无预设</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="73"/>
        <source>Use a saved system prompt</source>
        <translation>使用已保存的系统提示词</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="83"/>
        <source>Preset name</source>
        <translation>预设名称</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="85"/>
        <source>Name for the preset</source>
        <translation>预设的名称</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="89"/>
        <source>Save as preset</source>
        <translation>保存为预设</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="91"/>
        <source>Save this chat&apos;s system prompt as a preset</source>
        <translation>将此对话的系统提示词保存为预设</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="100"/>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="101"/>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="102"/>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="103"/>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="104"/>
        <source>Repeat penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="105"/>
        <source>Longest reply (tokens)</source>
        <translation>最长回复（词元）</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="110"/>
        <source>(as in Settings)</source>
        <translation>（同“设置”）</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="120"/>
        <source>Use Settings</source>
        <translation>使用“设置”中的值</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="121"/>
        <source>Use the sampling from Settings for this chat</source>
        <translation>此对话使用“设置”中的采样设置</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatSettingsPanel.qml" line="128"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../ui/Chat/ChatView.qml" line="21"/>
        <source>Messages</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatView.qml" line="23"/>
        <source>Scroll the messages</source>
        <translation>滚动消息</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatView.qml" line="59"/>
        <source>Ask %1 anything. Your chat stays on this computer.</source>
        <translation>向 %1 提任何问题。你的对话只保存在这台电脑上。</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ChatView.qml" line="60"/>
        <source>Load a model to start chatting.</source>
        <translation>加载模型后即可开始对话。</translation>
    </message>
</context>
<context>
    <name>CodeBlock</name>
    <message>
        <location filename="../ui/Chat/CodeBlock.qml" line="19"/>
        <source>Code block %1</source>
        <translation>代码块 %1</translation>
    </message>
    <message>
        <location filename="../ui/Chat/CodeBlock.qml" line="33"/>
        <source>code</source>
        <translation>代码</translation>
    </message>
    <message>
        <location filename="../ui/Chat/CodeBlock.qml" line="42"/>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <location filename="../ui/Chat/CodeBlock.qml" line="42"/>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <location filename="../ui/Chat/Composer.qml" line="47"/>
        <source>Message %1 (Enter to send, Shift+Enter for a new line)</source>
        <translation>给 %1 发消息（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <location filename="../ui/Chat/Composer.qml" line="48"/>
        <source>Load a model to start chatting: drop a .gguf file anywhere or use Load model…</source>
        <translation>请先加载模型：将 .gguf 文件拖到窗口任意位置，或使用“加载模型…”</translation>
    </message>
    <message>
        <location filename="../ui/Chat/Composer.qml" line="51"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../ui/Chat/Composer.qml" line="66"/>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <location filename="../ui/Chat/Composer.qml" line="67"/>
        <source>Send the message (Enter)</source>
        <translation>发送消息（Enter）</translation>
    </message>
    <message>
        <location filename="../ui/Chat/Composer.qml" line="73"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../ui/Chat/Composer.qml" line="74"/>
        <source>Stop the reply (Esc)</source>
        <translation>停止回复（Esc）</translation>
    </message>
</context>
<context>
    <name>ConfirmDefaultsDialog</name>
    <message>
        <location filename="../ui/Settings/ConfirmDefaultsDialog.qml" line="13"/>
        <source>Restore the default settings?</source>
        <translation>恢复默认设置？</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ConfirmDefaultsDialog.qml" line="20"/>
        <source>Every setting goes back to its default, and your system prompt is cleared. Chats and their own settings are kept.</source>
        <translation>所有设置都将恢复为默认值，系统提示词也会被清空。对话及其各自的设置会保留。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/ConfirmDefaultsDialog.qml" line="21"/>
        <source>Every setting goes back to its default. Chats and their own settings are kept.</source>
        <translation>所有设置都将恢复为默认值。对话及其各自的设置会保留。</translation>
    </message>
</context>
<context>
    <name>ConnectionsDialog</name>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="52"/>
        <source>Saved. Testing…</source>
        <translation>已保存。正在测试…</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="57"/>
        <source>Servers</source>
        <translation>服务器</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="66"/>
        <source>Connected: %1.</source>
        <translation>已连接：%1。</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="78"/>
        <source>Chat with models served by vLLM, LMDeploy, llama.cpp&apos;s server or another Hearth through their OpenAI API. Chats stay on this computer; each message is sent to the server.</source>
        <translation>通过 OpenAI API 与 vLLM、LMDeploy、llama.cpp 服务器或另一个 Hearth 提供的模型聊天。聊天记录保存在本机；每条消息都会发送到服务器。</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="107"/>
        <source>%1 at %2: %3</source>
        <translation>%2 上的 %1：%3</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/Model/ConnectionsDialog.qml" line="108"/>
        <source>%n model(s)</source>
        <translation>
            <numerusform>%n 个模型</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="131"/>
        <source>Testing…</source>
        <translation>正在测试…</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="132"/>
        <source>Serves: %1</source>
        <translation>提供：%1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="134"/>
        <source>Not tested yet</source>
        <translation>尚未测试</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="142"/>
        <source>Trusted certificate: %1</source>
        <translation>已信任的证书：%1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="148"/>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="149"/>
        <source>Edit %1</source>
        <translation>编辑 %1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="153"/>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="154"/>
        <source>Test the connection to %1</source>
        <translation>测试与 %1 的连接</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="161"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="162"/>
        <source>Remove %1</source>
        <translation>移除 %1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="173"/>
        <source>Add a server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="173"/>
        <source>Edit the server</source>
        <translation>编辑服务器</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="183"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="188"/>
        <source>e.g. Lab GPU server (the host if empty)</source>
        <translation>例如：实验室 GPU 服务器（留空则使用主机名）</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="190"/>
        <source>Server name</source>
        <translation>服务器名称</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="192"/>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="199"/>
        <source>Base URL of the server&apos;s OpenAI API</source>
        <translation>服务器 OpenAI API 的基础 URL</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="201"/>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="215"/>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="212"/>
        <source>Unchanged (type to replace)</source>
        <translation>未更改（输入以替换）</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="212"/>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="223"/>
        <source>Remove key</source>
        <translation>移除密钥</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="224"/>
        <source>Remove the stored API key</source>
        <translation>移除已保存的 API 密钥</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="227"/>
        <source>Timeout (s)</source>
        <translation>超时（秒）</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="231"/>
        <source>Seconds to wait for the server before giving up</source>
        <translation>放弃前等待服务器的秒数</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="251"/>
        <source>Trust this certificate</source>
        <translation>信任此证书</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="252"/>
        <source>Trust this server&apos;s certificate for this connection only</source>
        <translation>仅对此连接信任该服务器的证书</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="258"/>
        <source>New</source>
        <translation>新建</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="259"/>
        <source>Add another server</source>
        <translation>添加另一台服务器</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="264"/>
        <source>Add and test</source>
        <translation>添加并测试</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="264"/>
        <source>Save and test</source>
        <translation>保存并测试</translation>
    </message>
    <message>
        <location filename="../ui/Model/ConnectionsDialog.qml" line="269"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>DropOverlay</name>
    <message>
        <location filename="../ui/Model/DropOverlay.qml" line="12"/>
        <source>Drop to load the model</source>
        <translation>松开以加载模型</translation>
    </message>
    <message>
        <location filename="../ui/Model/DropOverlay.qml" line="16"/>
        <source>Drop a .gguf model to load it</source>
        <translation>拖放 .gguf 模型即可加载</translation>
    </message>
</context>
<context>
    <name>DropZone</name>
    <message>
        <location filename="../ui/Home/DropZone.qml" line="25"/>
        <source>Model drop zone</source>
        <translation>模型拖放区</translation>
    </message>
    <message>
        <location filename="../ui/Home/DropZone.qml" line="44"/>
        <source>Release to open the model</source>
        <translation>松开以打开模型</translation>
    </message>
    <message>
        <location filename="../ui/Home/DropZone.qml" line="44"/>
        <source>Drop a .gguf model here</source>
        <translation>将 .gguf 模型拖放到这里</translation>
    </message>
    <message>
        <location filename="../ui/Home/DropZone.qml" line="53"/>
        <source>GGUF files from Hugging Face, LM Studio or llama.cpp work as they are.</source>
        <translation>来自 Hugging Face、LM Studio 或 llama.cpp 的 GGUF 文件可直接使用。</translation>
    </message>
    <message>
        <location filename="../ui/Home/DropZone.qml" line="62"/>
        <source>Choose a model…</source>
        <translation>选择模型…</translation>
    </message>
    <message>
        <location filename="../ui/Home/DropZone.qml" line="63"/>
        <source>Opens a file dialog to pick a .gguf model</source>
        <translation>打开文件对话框以选择 .gguf 模型</translation>
    </message>
    <message>
        <location filename="../ui/Home/DropZone.qml" line="71"/>
        <source>Choose a model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <location filename="../ui/Home/DropZone.qml" line="72"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <location filename="../ui/Home/DropZone.qml" line="72"/>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>EmptyState</name>
    <message>
        <location filename="../ui/Home/EmptyState.qml" line="24"/>
        <source>Welcome</source>
        <translation>欢迎</translation>
    </message>
    <message>
        <location filename="../ui/Home/EmptyState.qml" line="33"/>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Home/EmptyState.qml" line="41"/>
        <source>Chat with language models that run entirely on your own computer. Nothing you type leaves this machine.</source>
        <translation>与完全在你自己电脑上运行的语言模型聊天。你输入的内容不会离开这台机器。</translation>
    </message>
</context>
<context>
    <name>LoadProgress</name>
    <message>
        <location filename="../ui/Model/LoadProgress.qml" line="28"/>
        <source>Loading %1</source>
        <translation>正在加载 %1</translation>
    </message>
    <message>
        <location filename="../ui/Model/LoadProgress.qml" line="54"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../ui/Model/LoadProgress.qml" line="55"/>
        <source>Cancel loading the model</source>
        <translation>取消加载模型</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <location filename="../ui/Main.qml" line="29"/>
        <source>%1 — Hearth</source>
        <translation>%1 — Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="29"/>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="252"/>
        <source>Assistant is writing a reply…</source>
        <translation>助手正在回复…</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="236"/>
        <source>Assistant: %1</source>
        <translation>助手：%1</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="238"/>
        <source>The reply is empty.</source>
        <translation>回复为空。</translation>
    </message>
</context>
<context>
    <name>MessageDelegate</name>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="102"/>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="102"/>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="79"/>
        <location filename="../ui/Chat/MessageDelegate.qml" line="161"/>
        <location filename="../ui/Chat/MessageDelegate.qml" line="163"/>
        <source>Previous version</source>
        <translation>上一个版本</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="169"/>
        <source>%1/%2</source>
        <translation>%1/%2</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="87"/>
        <location filename="../ui/Chat/MessageDelegate.qml" line="176"/>
        <location filename="../ui/Chat/MessageDelegate.qml" line="178"/>
        <source>Next version</source>
        <translation>下一个版本</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="32"/>
        <source>You: %1</source>
        <translation>你：%1</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="32"/>
        <source>Assistant: %1</source>
        <translation>助手：%1</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="55"/>
        <location filename="../ui/Chat/MessageDelegate.qml" line="182"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="63"/>
        <location filename="../ui/Chat/MessageDelegate.qml" line="188"/>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="71"/>
        <location filename="../ui/Chat/MessageDelegate.qml" line="194"/>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="33"/>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageDelegate.qml" line="218"/>
        <source>Earlier messages up to here are no longer seen by the model: the chat is longer than its context. The system prompt is kept.</source>
        <translation>到此为止的较早消息模型已看不到：对话超出了上下文长度。系统提示词仍会保留。</translation>
    </message>
</context>
<context>
    <name>MessageEditor</name>
    <message>
        <location filename="../ui/Chat/MessageEditor.qml" line="27"/>
        <source>Edit message</source>
        <translation>编辑消息</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageEditor.qml" line="41"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageEditor.qml" line="43"/>
        <source>Discard the changes (Esc)</source>
        <translation>放弃修改 (Esc)</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageEditor.qml" line="48"/>
        <source>Save and send</source>
        <translation>保存并发送</translation>
    </message>
    <message>
        <location filename="../ui/Chat/MessageEditor.qml" line="49"/>
        <source>Save the edit as a new version and ask again (Ctrl+Enter)</source>
        <translation>将修改保存为新版本并重新提问 (Ctrl+Enter)</translation>
    </message>
</context>
<context>
    <name>ModelBar</name>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="48"/>
        <source>Chats</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="53"/>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="74"/>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="75"/>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="78"/>
        <source>Model: %1</source>
        <translation>模型：%1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="100"/>
        <source>Backend %1. %2</source>
        <translation>后端 %1。%2</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="118"/>
        <source>Load model…</source>
        <translation>加载模型…</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="119"/>
        <source>Choose a .gguf model file</source>
        <translation>选择 .gguf 模型文件</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="124"/>
        <source>Recent ▾</source>
        <translation>最近 ▾</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="125"/>
        <source>Recently used models</source>
        <translation>最近使用的模型</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="136"/>
        <source>Load %1</source>
        <translation>加载 %1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="145"/>
        <source>Unload</source>
        <translation>卸载</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="146"/>
        <source>Unload the model and free its memory</source>
        <translation>卸载模型并释放内存</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="153"/>
        <location filename="../ui/Model/ModelBar.qml" line="196"/>
        <source>Switch to light theme</source>
        <translation>切换到浅色主题</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="153"/>
        <location filename="../ui/Model/ModelBar.qml" line="196"/>
        <source>Switch to dark theme</source>
        <translation>切换到深色主题</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="160"/>
        <source>Settings (Ctrl+,)</source>
        <translation>设置（Ctrl+,）</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="167"/>
        <location filename="../ui/Model/ModelBar.qml" line="206"/>
        <source>Keyboard shortcuts (F1)</source>
        <translation>键盘快捷键 (F1)</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="173"/>
        <source>About</source>
        <translation>关于</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="174"/>
        <location filename="../ui/Model/ModelBar.qml" line="211"/>
        <source>About Hearth</source>
        <translation>关于 Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="181"/>
        <source>More: theme, settings, keyboard shortcuts, About</source>
        <translation>更多：主题、设置、键盘快捷键、关于</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="191"/>
        <source>Unload model</source>
        <translation>卸载模型</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="201"/>
        <source>Settings… (Ctrl+,)</source>
        <translation>设置… (Ctrl+,)</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="222"/>
        <source>Choose a model</source>
        <translation>选择模型</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="223"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelBar.qml" line="223"/>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>ModelCard</name>
    <message>
        <location filename="../ui/Components/ModelCard.qml" line="19"/>
        <source>Selected model %1, %2</source>
        <translation>已选择模型 %1，%2</translation>
    </message>
    <message>
        <location filename="../ui/Components/ModelCard.qml" line="28"/>
        <source>Selected model</source>
        <translation>已选择的模型</translation>
    </message>
</context>
<context>
    <name>ModelLibraryDialog</name>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="18"/>
        <source>Fits</source>
        <translation>可运行</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="19"/>
        <source>Tight</source>
        <translation>内存紧张</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="20"/>
        <source>Won&apos;t fit</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="24"/>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="39"/>
        <source>Folders: %1</source>
        <translation>文件夹：%1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="40"/>
        <source>Add a folder with .gguf files; recent models are always listed.</source>
        <translation>添加包含 .gguf 文件的文件夹；最近使用的模型总会列出。</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="52"/>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="57"/>
        <source>Servers…</source>
        <translation>服务器…</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="58"/>
        <source>Models on a server: vLLM, LMDeploy, llama.cpp&apos;s server or another Hearth</source>
        <translation>服务器上的模型：vLLM、LMDeploy、llama.cpp 服务器或另一个 Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="79"/>
        <source>%1: cannot be used</source>
        <translation>%1：无法使用</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="80"/>
        <source>%1, %2, %3, %4</source>
        <translation>%1，%2，%3，%4</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="92"/>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="195"/>
        <source>(in use)</source>
        <translation>（使用中）</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="102"/>
        <source>Cannot be used: %1</source>
        <translation>无法使用：%1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="103"/>
        <source>%1 · %2 · %3 · context %4 · needs about %5</source>
        <translation>%1 · %2 · %3 · 上下文 %4 · 约需 %5</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="127"/>
        <source>Needs about %1; %2 is free now.</source>
        <translation>约需 %1；当前可用 %2。</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="136"/>
        <source>Load</source>
        <translation>加载</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="138"/>
        <source>Load %1</source>
        <translation>加载 %1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="149"/>
        <source>No models found yet.</source>
        <translation>还没有找到模型。</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="156"/>
        <source>On servers</source>
        <translation>服务器上</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="184"/>
        <source>%1, remote, on %2</source>
        <translation>%1，远程，位于 %2</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="204"/>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="211"/>
        <source>Remote · %1</source>
        <translation>远程 · %1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="217"/>
        <source>Use</source>
        <translation>使用</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="219"/>
        <source>Use %1 on %2</source>
        <translation>使用 %2 上的 %1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="234"/>
        <source>Remove %1</source>
        <translation>移除 %1</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="235"/>
        <source>Stop listing the models in %1</source>
        <translation>不再列出 %1 中的模型</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="241"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../ui/Model/ModelLibraryDialog.qml" line="255"/>
        <source>A folder with models</source>
        <translation>包含模型的文件夹</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <location filename="../app/core/model_picker.cpp" line="28"/>
        <source>“%1” is not a file on this computer. Download the model first, then drop the .gguf file here.</source>
        <translation>“%1”不是这台电脑上的文件。请先下载模型，再把 .gguf 文件拖放到这里。</translation>
    </message>
    <message>
        <location filename="../app/core/model_picker.cpp" line="34"/>
        <source>“%1” is not a model file. Hearth opens GGUF models, files whose names end in .gguf.</source>
        <translation>“%1”不是模型文件。Hearth 打开 GGUF 模型，即文件名以 .gguf 结尾的文件。</translation>
    </message>
    <message>
        <location filename="../app/core/model_picker.cpp" line="40"/>
        <source>“%1” could not be found. It may have been moved or deleted.</source>
        <translation>找不到“%1”。它可能已被移动或删除。</translation>
    </message>
    <message>
        <location filename="../app/core/model_picker.cpp" line="44"/>
        <source>“%1” is a folder, not a model file.</source>
        <translation>“%1”是文件夹，不是模型文件。</translation>
    </message>
    <message>
        <location filename="../app/core/model_picker.cpp" line="49"/>
        <source>“%1” could not be opened: %2</source>
        <translation>无法打开“%1”：%2</translation>
    </message>
    <message>
        <location filename="../app/core/model_picker.cpp" line="53"/>
        <source>“%1” ends in .gguf but is not a GGUF model: it does not start with the GGUF signature. The download may be incomplete.</source>
        <translation>“%1”以 .gguf 结尾，但不是 GGUF 模型：它不以 GGUF 签名开头。下载可能不完整。</translation>
    </message>
</context>
<context>
    <name>ModelProbe</name>
    <message>
        <location filename="../app/engine/model_probe.cpp" line="104"/>
        <source>the file holds no model weights</source>
        <translation>文件中没有模型权重</translation>
    </message>
</context>
<context>
    <name>NumberRow</name>
    <message>
        <location filename="../ui/Settings/NumberRow.qml" line="28"/>
        <source>“%1” is not allowed: enter a number from %2 to %3. Kept %4.</source>
        <translation>“%1”无效：请输入 %2 到 %3 之间的数字。已保留 %4。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/NumberRow.qml" line="57"/>
        <source>(%1 – %2)</source>
        <translation>（%1 – %2）</translation>
    </message>
    <message>
        <location filename="../ui/Settings/NumberRow.qml" line="51"/>
        <source>A number from %1 to %2</source>
        <translation>%1 到 %2 之间的数字</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <location filename="../app/chat/app_settings.cpp" line="88"/>
        <source>The settings file %1 could not be read, so the defaults are in use; the old file was kept as %2.</source>
        <translation>无法读取设置文件 %1，已使用默认设置；旧文件保存为 %2。</translation>
    </message>
    <message>
        <location filename="../app/chat/app_settings.cpp" line="92"/>
        <source>The settings file %1 could not be read, so the defaults are in use.</source>
        <translation>无法读取设置文件 %1，已使用默认设置。</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_http.cpp" line="73"/>
        <source>The secure connection to %1 was refused: %2.</source>
        <translation>与 %1 的安全连接被拒绝：%2。</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_http.cpp" line="76"/>
        <source>If this is your own server with a self-signed certificate, check that its SHA-256 fingerprint is %1 and trust it in the connection&apos;s settings.</source>
        <translation>如果这是你自己的使用自签名证书的服务器，请确认其 SHA-256 指纹为 %1，然后在连接设置中信任它。</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_http.cpp" line="87"/>
        <source>Nothing answers at %1 (connection refused). Is the server running, and is the port right?</source>
        <translation>%1 没有响应（连接被拒绝）。服务器是否在运行？端口是否正确？</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_http.cpp" line="92"/>
        <source>The server name “%1” could not be found (DNS). Check the URL and your network.</source>
        <translation>找不到服务器名称“%1”（DNS）。请检查 URL 和网络。</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_http.cpp" line="98"/>
        <source>%1 did not answer in time.</source>
        <translation>%1 未及时响应。</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_http.cpp" line="100"/>
        <source>%1 closed the connection.</source>
        <translation>%1 关闭了连接。</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_http.cpp" line="102"/>
        <source>The secure (TLS) connection to %1 failed: %2. Is it an https server?</source>
        <translation>与 %1 的安全（TLS）连接失败：%2。它是 https 服务器吗？</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_http.cpp" line="107"/>
        <source>“%1” is not an http:// or https:// URL.</source>
        <translation>“%1”不是 http:// 或 https:// URL。</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_http.cpp" line="109"/>
        <source>The connection to %1 failed: %2</source>
        <translation>与 %1 的连接失败：%2</translation>
    </message>
</context>
<context>
    <name>ReplaceModelDialog</name>
    <message>
        <location filename="../ui/Dialogs/ReplaceModelDialog.qml" line="17"/>
        <source>Open another model?</source>
        <translation>打开另一个模型？</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ReplaceModelDialog.qml" line="37"/>
        <source>Hearth is writing a reply. Opening %1 stops the reply and replaces the loaded model.</source>
        <translation>Hearth 正在写回复。打开 %1 会停止回复并替换已加载的模型。</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ReplaceModelDialog.qml" line="45"/>
        <source>Open %1</source>
        <translation>打开 %1</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ReplaceModelDialog.qml" line="48"/>
        <source>Keep the current model</source>
        <translation>保留当前模型</translation>
    </message>
</context>
<context>
    <name>ReplyState</name>
    <message>
        <location filename="../ui/Chat/ReplyState.qml" line="20"/>
        <source>Writing…</source>
        <translation>正在生成…</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ReplyState.qml" line="21"/>
        <source>Stopped by you</source>
        <translation>已由你停止</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ReplyState.qml" line="22"/>
        <source>Stopped at the reply length limit</source>
        <translation>已达到回复长度上限</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ReplyState.qml" line="23"/>
        <source>Stopped: the chat filled the model&apos;s context</source>
        <translation>已停止：对话占满了模型的上下文</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ReplyState.qml" line="24"/>
        <source>Stopped by an error</source>
        <translation>因错误而停止</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ReplyState.qml" line="25"/>
        <source>Interrupted: Hearth closed while writing this</source>
        <translation>已中断：生成时 Hearth 被关闭</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ReplyState.qml" line="47"/>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ReplyState.qml" line="48"/>
        <source>Let the model write on from the end of this reply</source>
        <translation>让模型从这条回复的末尾继续写</translation>
    </message>
</context>
<context>
    <name>SaveChatDialog</name>
    <message>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="32"/>
        <source>Export chat (JSON, every branch)</source>
        <translation>导出对话（JSON，包含所有分支）</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="33"/>
        <source>Export chat (plain text)</source>
        <translation>导出对话（纯文本）</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="33"/>
        <source>Export chat (Markdown)</source>
        <translation>导出对话（Markdown）</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="40"/>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="50"/>
        <source>File name</source>
        <translation>文件名</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="54"/>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="66"/>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="69"/>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="70"/>
        <source>Choose the folder</source>
        <translation>选择文件夹</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="79"/>
        <source>A file with this name is already there; Save replaces it.</source>
        <translation>已存在同名文件；保存将替换它。</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/SaveChatDialog.qml" line="87"/>
        <source>Folder for the export</source>
        <translation>导出到的文件夹</translation>
    </message>
</context>
<context>
    <name>SearchResultGroup</name>
    <message>
        <location filename="../ui/Sidebar/SearchResultGroup.qml" line="22"/>
        <source>Untitled chat</source>
        <translation>未命名对话</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/Sidebar/SearchResultGroup.qml" line="28"/>
        <source>%1, %n match(es)</source>
        <translation>
            <numerusform>%1，%n 处匹配</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/SearchResultGroup.qml" line="37"/>
        <source>Your message: %1</source>
        <translation>你的消息：%1</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/SearchResultGroup.qml" line="38"/>
        <source>Reply: %1</source>
        <translation>回复：%1</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/SearchResultGroup.qml" line="42"/>
        <source>You: </source>
        <translation>你：</translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="36"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="42"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="61"/>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="62"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="72"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="115"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="162"/>
        <source>Applies when the model is loaded again.</source>
        <translation>重新加载模型后生效。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="64"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="76"/>
        <source>Auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="89"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="90"/>
        <source>Applies from the next message. Q8 and Q4 hold longer chats in less memory.</source>
        <translation>从下一条消息起生效。Q8 和 Q4 能用更少的内存容纳更长的对话。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="92"/>
        <source>Q4 changes the model&apos;s answers noticeably on small models (it agrees with F16 far less often than Q8).</source>
        <translation>Q4 会明显改变小模型的回答（与 F16 的一致程度远低于 Q8）。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="95"/>
        <source>On the CPU, Q8 also makes long chats decode faster than F16.</source>
        <translation>在 CPU 上，Q8 还能让长对话的解码比 F16 更快。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="113"/>
        <source>4-bit weights</source>
        <translation>4 位权重</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="114"/>
        <source>Converts 16/8-bit models to 4-bit when loading: about a quarter of the memory, faster replies; the first load takes longer, then it is cached.</source>
        <translation>加载时将 16/8 位模型转换为 4 位：内存约为原来的四分之一，回复更快；首次加载较慢，之后会使用缓存。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="104"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="118"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="165"/>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="52"/>
        <source>The model in use runs on %1: its backend, memory, context and 4-bit settings are the server&apos;s, so they are not shown here. Sampling and the system prompt are sent with every message.</source>
        <translation>当前模型运行在 %1 上：其后端、内存、上下文和 4 位设置由服务器决定，因此这里不显示。采样设置和系统提示词会随每条消息发送。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="70"/>
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="71"/>
        <source>Layers run on the GPU, the rest on the CPU. Auto puts as many as fit in its free memory.</source>
        <translation>这些层在 GPU 上运行，其余在 CPU 上运行。“自动”会放入其空闲显存能容纳的最多层数。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="82"/>
        <source>GPU layers (empty for automatic)</source>
        <translation>GPU 层数（留空为自动）</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="100"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="107"/>
        <source>Reload the last model at start</source>
        <translation>启动时重新加载上次的模型</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="101"/>
        <source>Hearth loads the model you used last when it starts.</source>
        <translation>Hearth 启动时会加载你上次使用的模型。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="104"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="118"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="165"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="213"/>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="121"/>
        <source>Convert weights to 4-bit when loading</source>
        <translation>加载时将权重转换为 4 位</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="126"/>
        <source>Clear 4-bit cache</source>
        <translation>清除 4 位缓存</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="127"/>
        <source>Delete the cached 4-bit conversions</source>
        <translation>删除已缓存的 4 位转换结果</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="142"/>
        <source>Context length (tokens)</source>
        <translation>上下文长度（词元）</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="143"/>
        <source>0 uses the model&apos;s own length, at most 4096. Applies from the next message.</source>
        <translation>0 表示使用模型自身的长度，最多 4096。从下一条消息起生效。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="175"/>
        <source>KV memory (MB)</source>
        <translation>KV 内存（MB）</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="176"/>
        <source>Memory for the context of all open chats together; the least recently used chats are saved to disk when it is full. 0 chooses a quarter of the free memory, at most eight full contexts. Applies from the next message.</source>
        <translation>所有打开的对话共用的上下文内存；用满时，最久未使用的对话会保存到磁盘。0 表示使用空闲内存的四分之一，最多八个完整上下文。从下一条消息起生效。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="183"/>
        <source>Saved context</source>
        <translation>已保存的上下文</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="184"/>
        <source>Chats&apos; context is kept on disk so they continue at once after a restart. Oldest are deleted past the limit (MB).</source>
        <translation>对话的上下文保存在磁盘上，重启后可立即继续。超过上限（MB）时删除最旧的。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="189"/>
        <source>Saved context limit in megabytes</source>
        <translation>已保存上下文的上限（MB）</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="194"/>
        <source>Clear saved context (%1)</source>
        <translation>清除已保存的上下文（%1）</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="195"/>
        <source>Delete the chats&apos; saved context</source>
        <translation>删除对话已保存的上下文</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="201"/>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="202"/>
        <source>0 uses all cores. Applies from the next message.</source>
        <translation>0 表示使用全部核心。从下一条消息起生效。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="210"/>
        <source>Speculative decoding</source>
        <translation>推测解码</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="211"/>
        <source>Drafts several tokens and lets the model check them in one step: the same replies, faster when the drafts are right. Prompt lookup drafts from the chat&apos;s own text (code being edited, quotes); a draft model is a smaller model with the same vocabulary. Applies from the next message.</source>
        <translation>先草拟几个词元，再让模型一步内核对：回复完全相同，草稿正确时更快。提示词查找从对话自身的文本（正在编辑的代码、引用）中草拟；草稿模型是词表相同的较小模型。从下一条消息起生效。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="213"/>
        <source>Prompt lookup</source>
        <translation>提示词查找</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="214"/>
        <source>Draft model</source>
        <translation>草稿模型</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="219"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="226"/>
        <source>Draft model file</source>
        <translation>草稿模型文件</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="224"/>
        <source>A GGUF file with the same vocabulary</source>
        <translation>词表相同的 GGUF 文件</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="230"/>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="231"/>
        <source>Choose the draft model file</source>
        <translation>选择草稿模型文件</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="237"/>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="238"/>
        <source>0 always picks the most likely word. Applies from the next message.</source>
        <translation>0 表示总是选择可能性最大的词。从下一条消息起生效。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="244"/>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="250"/>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="256"/>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="262"/>
        <source>Repeat penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="268"/>
        <source>Longest reply (tokens)</source>
        <translation>最长回复（词元）</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="274"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="288"/>
        <source>Default system prompt</source>
        <translation>默认系统提示词</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="275"/>
        <source>Used by new chats.</source>
        <translation>用于新建的对话。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="285"/>
        <source>e.g. You are a concise assistant.</source>
        <translation>例如：你是一个简洁的助手。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="294"/>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="295"/>
        <location filename="../ui/Settings/SettingsPanel.qml" line="313"/>
        <source>Applies at once.</source>
        <translation>立即生效。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="297"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="297"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="298"/>
        <source>Follow system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="303"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="304"/>
        <source>Applies after Hearth is restarted.</source>
        <translation>重新启动 Hearth 后生效。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="306"/>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="312"/>
        <source>Text size</source>
        <translation>文字大小</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="315"/>
        <source>Small</source>
        <translation>小</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="315"/>
        <source>Normal</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="316"/>
        <source>Large</source>
        <translation>大</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="316"/>
        <source>Larger</source>
        <translation>更大</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="325"/>
        <source>Restore defaults</source>
        <translation>恢复默认设置</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="340"/>
        <source>Choose a draft model</source>
        <translation>选择草稿模型</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="341"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="341"/>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="160"/>
        <source>Beyond the training length</source>
        <translation>超出训练长度</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="161"/>
        <source>Keeps a context length longer than the model was trained on (otherwise it is shortened to the model&apos;s own); replies past that length may lose coherence.</source>
        <translation>保留比模型训练长度更长的上下文长度（否则会缩短为模型自身的长度）；超过该长度的回复可能失去连贯性。</translation>
    </message>
    <message>
        <location filename="../ui/Settings/SettingsPanel.qml" line="168"/>
        <source>Allow a context longer than the model was trained on</source>
        <translation>允许比模型训练长度更长的上下文</translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="11"/>
        <source>Enter</source>
        <translation>Enter</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="11"/>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="12"/>
        <source>Shift+Enter</source>
        <translation>Shift+Enter</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="12"/>
        <source>New line in the message</source>
        <translation>在消息中换行</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="13"/>
        <source>Esc</source>
        <translation>Esc</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="13"/>
        <source>Stop the reply; cancel an edit or a rename</source>
        <translation>停止回复；取消编辑或重命名</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="14"/>
        <source>Ctrl+Enter</source>
        <translation>Ctrl+Enter</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="14"/>
        <source>Save an edited message and ask again</source>
        <translation>保存修改后的消息并重新提问</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="15"/>
        <source>Ctrl+N</source>
        <translation>Ctrl+N</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="15"/>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="16"/>
        <source>Ctrl+F</source>
        <translation>Ctrl+F</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="16"/>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="17"/>
        <source>Ctrl+B</source>
        <translation>Ctrl+B</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="17"/>
        <source>Go to the chat list</source>
        <translation>转到对话列表</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="18"/>
        <source>↑ ↓, Enter</source>
        <translation>↑ ↓、Enter</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="18"/>
        <source>Choose a chat in the list and open it</source>
        <translation>在列表中选择并打开对话</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="19"/>
        <source>F2</source>
        <translation>F2</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="19"/>
        <source>Rename the chosen chat</source>
        <translation>重命名所选对话</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="20"/>
        <source>Delete</source>
        <translation>Delete</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="20"/>
        <source>Delete the chosen chat (Undo in the banner)</source>
        <translation>删除所选对话（可在横幅中撤销）</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="21"/>
        <source>Menu, Shift+F10</source>
        <translation>Menu、Shift+F10</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="21"/>
        <source>Actions of the chosen chat or message</source>
        <translation>所选对话或消息的操作</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="22"/>
        <source>Tab, Shift+Tab</source>
        <translation>Tab、Shift+Tab</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="22"/>
        <source>Move between controls and message actions</source>
        <translation>在控件和消息操作之间移动</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="23"/>
        <source>Ctrl+Shift+C</source>
        <translation>Ctrl+Shift+C</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="23"/>
        <source>Copy the last answer</source>
        <translation>复制最后的回答</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="24"/>
        <source>Ctrl+,</source>
        <translation>Ctrl+,</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="24"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="25"/>
        <source>F1, Ctrl+/</source>
        <translation>F1、Ctrl+/</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="25"/>
        <source>This list of shortcuts</source>
        <translation>本快捷键列表</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="29"/>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="45"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/ShortcutsDialog.qml" line="75"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="25"/>
        <location filename="../ui/Sidebar/Sidebar.qml" line="97"/>
        <source>Chats</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="42"/>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="43"/>
        <source>Start a new chat (Ctrl+N)</source>
        <translation>开始新对话（Ctrl+N）</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="50"/>
        <source>Search chats (Ctrl+F)</source>
        <translation>搜索对话（Ctrl+F）</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="51"/>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="79"/>
        <source>No matches</source>
        <translation>没有匹配结果</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="98"/>
        <source>Arrow keys move, Enter opens, F2 renames, Delete deletes</source>
        <translation>方向键移动，Enter 打开，F2 重命名，Delete 删除</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="169"/>
        <source>Trash (%1)</source>
        <translation>回收站 (%1)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="169"/>
        <source>Trash</source>
        <translation>回收站</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="170"/>
        <source>Deleted chats, kept for 30 days</source>
        <translation>已删除的对话，保留 30 天</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="175"/>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="176"/>
        <source>The models in your folders and the recent ones</source>
        <translation>你的文件夹中的模型和最近使用的模型</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="182"/>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="183"/>
        <source>Import a chat exported as JSON</source>
        <translation>导入以 JSON 导出的对话</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="203"/>
        <source>Import a chat</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="205"/>
        <source>Hearth chats (*.json)</source>
        <translation>Hearth 对话 (*.json)</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/Sidebar.qml" line="155"/>
        <source>Your chats will appear here.</source>
        <translation>你的对话将显示在这里。</translation>
    </message>
</context>
<context>
    <name>StatusLine</name>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="24"/>
        <source>%1 tok/s · prompt %2 tok/s · first token %3 ms</source>
        <translation>%1 词元/秒 · 提示词 %2 词元/秒 · 首个词元 %3 毫秒</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="28"/>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="35"/>
        <source>%1 · KV %2</source>
        <translation>%1 · KV %2</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="43"/>
        <source>%1: %2% of drafts accepted</source>
        <translation>%1：%2% 的草稿被接受</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="43"/>
        <source>lookup</source>
        <translation>提示词查找</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="43"/>
        <source>draft model</source>
        <translation>草稿模型</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="45"/>
        <source>speculative decoding off: %1</source>
        <translation>推测解码已关闭：%1</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="53"/>
        <source>memory %1</source>
        <translation>内存 %1</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="69"/>
        <source>context %1 / %2</source>
        <translation>上下文 %1 / %2</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="80"/>
        <source>Context used</source>
        <translation>已用上下文</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="60"/>
        <source>API server: 1 active request</source>
        <translation>API 服务器：1 个活动请求</translation>
    </message>
    <message>
        <location filename="../ui/Chat/StatusLine.qml" line="61"/>
        <source>API server: %1 active requests</source>
        <translation>API 服务器：%1 个活动请求</translation>
    </message>
</context>
<context>
    <name>ThinkingBlock</name>
    <message>
        <location filename="../ui/Chat/ThinkingBlock.qml" line="27"/>
        <source>Hide the model&apos;s thinking</source>
        <translation>隐藏模型的思考过程</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ThinkingBlock.qml" line="28"/>
        <source>Show the model&apos;s thinking</source>
        <translation>显示模型的思考过程</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ThinkingBlock.qml" line="41"/>
        <source>Thought for 1 word</source>
        <translation>思考了 1 个词</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ThinkingBlock.qml" line="42"/>
        <source>Thought for %1 words</source>
        <translation>思考了 %1 个词</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ThinkingBlock.qml" line="40"/>
        <source>Thinking…</source>
        <translation>正在思考…</translation>
    </message>
    <message>
        <location filename="../ui/Chat/ThinkingBlock.qml" line="64"/>
        <source>Thinking: %1</source>
        <translation>思考：%1</translation>
    </message>
</context>
<context>
    <name>TrashDialog</name>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="13"/>
        <source>Trash</source>
        <translation>回收站</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="24"/>
        <source>Deleted chats are kept for 30 days, then removed for good.</source>
        <translation>已删除的对话会保留 30 天，之后永久删除。</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/Sidebar/TrashDialog.qml" line="48"/>
        <source>%n day(s) left</source>
        <translation>
            <numerusform>还剩 %n 天</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="54"/>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="55"/>
        <source>Restore %1</source>
        <translation>恢复 %1</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="59"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="60"/>
        <source>Delete %1 for good</source>
        <translation>永久删除 %1</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="67"/>
        <source>The trash is empty.</source>
        <translation>回收站是空的。</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="77"/>
        <source>Empty trash</source>
        <translation>清空回收站</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="82"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../ui/Sidebar/TrashDialog.qml" line="91"/>
        <source>Empty the trash?</source>
        <translation>清空回收站？</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/Sidebar/TrashDialog.qml" line="93"/>
        <source>%n chat(s) will be deleted for good.</source>
        <translation>
            <numerusform>%n 个对话将被永久删除。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hearth::app::ChatController</name>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="110"/>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="114"/>
        <source>Freed %1.</source>
        <translation>已释放 %1。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="195"/>
        <location filename="../app/chat/chat_controller.cpp" line="493"/>
        <source>Saving the chat failed: %1</source>
        <translation>保存对话失败：%1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="261"/>
        <location filename="../app/chat/chat_controller.cpp" line="548"/>
        <source>The chat could not be opened: %1</source>
        <translation>无法打开对话：%1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="358"/>
        <source>The message could not be saved: %1</source>
        <translation>无法保存消息：%1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="419"/>
        <source>The reply was cut off: %1 What arrived is kept; Continue writes on from it.</source>
        <translation>回复被中断：%1 已收到的内容会保留；“继续”会从这里接着写。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="432"/>
        <source>The reply could not be generated: %1</source>
        <translation>无法生成回复：%1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="499"/>
        <source>Stopped before the reply began, so there is nothing to keep.</source>
        <translation>在回复开始前已停止，没有可保留的内容。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="502"/>
        <source>This chat fills the model&apos;s whole context, so there was no room for a reply. Start a new chat or raise the context length in Settings.</source>
        <translation>此对话占满了模型的全部上下文，没有空间生成回复。请新建对话，或在设置中增大上下文长度。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller.cpp" line="505"/>
        <source>The model ended its reply without writing anything. Try Regenerate.</source>
        <translation>模型没有写出任何内容就结束了回复。请尝试重新生成。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_library.cpp" line="41"/>
        <location filename="../app/chat/chat_controller_library.cpp" line="91"/>
        <source>Untitled chat</source>
        <translation>未命名对话</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_transfer.cpp" line="31"/>
        <source>Chat exported to %1</source>
        <translation>对话已导出到 %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_transfer.cpp" line="33"/>
        <source>The chat could not be exported: %1</source>
        <translation>无法导出对话：%1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_transfer.cpp" line="43"/>
        <source>chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_transfer.cpp" line="64"/>
        <location filename="../app/chat/chat_controller_transfer.cpp" line="69"/>
        <location filename="../app/chat/chat_controller_transfer.cpp" line="77"/>
        <source>The chat could not be imported: %1</source>
        <translation>无法导入对话：%1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_transfer.cpp" line="83"/>
        <source>Chat imported.</source>
        <translation>对话已导入。</translation>
    </message>
    <message>
        <location filename="../app/chat/backend_label.cpp" line="12"/>
        <source>Reference device</source>
        <translation>参考设备</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="27"/>
        <source>It needs more memory than this computer has available.</source>
        <translation>它需要的内存超过这台电脑的可用内存。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="29"/>
        <source>This model&apos;s architecture is not supported yet.</source>
        <translation>暂不支持此模型的架构。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="31"/>
        <source>There is not enough memory to load this model.</source>
        <translation>内存不足，无法加载此模型。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="33"/>
        <source>The file may be damaged or incomplete.</source>
        <translation>文件可能已损坏或不完整。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="34"/>
        <source>“%1” could not be loaded. %2
Details: %3</source>
        <translation>无法加载“%1”。%2
详细信息：%3</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="79"/>
        <source>Connecting to %1…</source>
        <translation>正在连接 %1…</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="81"/>
        <source>Converting to 4-bit… %1%</source>
        <translation>正在转换为 4 位… %1%</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="83"/>
        <source>Preparing the weights… %1%</source>
        <translation>正在准备权重… %1%</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="84"/>
        <source>Loading… %1%</source>
        <translation>正在加载… %1%</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="195"/>
        <source>%1: in use (%2)</source>
        <translation>%1：正在使用（%2）</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="198"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="199"/>
        <source>available, not chosen</source>
        <translation>可用，但未选用</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="203"/>
        <source>%1 of %2 layers on %3, the rest on the CPU</source>
        <translation>%2 层中有 %1 层在 %3 上，其余在 CPU 上</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="212"/>
        <source>4-bit (converted)</source>
        <translation>4 位（已转换）</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="212"/>
        <source>4-bit (converted from %1)</source>
        <translation>4 位（由 %1 转换）</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="217"/>
        <source>Remote · %1</source>
        <translation>远程 · %1</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="219"/>
        <source>Runs on the server “%1” (%2); each message is sent there.</source>
        <translation>运行在服务器“%1”（%2）上；每条消息都会发送到那里。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="247"/>
        <source>This model has no separate place for a system prompt, so Hearth puts it at the start of your first message.</source>
        <translation>此模型没有单独放置系统提示词的位置，因此 Hearth 会把它放在你第一条消息的开头。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="251"/>
        <source>This model&apos;s own chat format could not be used, so Hearth uses a standard one. Replies may be a little off; a newer file of this model may fix it.</source>
        <translation>无法使用此模型自带的对话格式，Hearth 改用标准格式。回复可能略有偏差；此模型的较新文件可能会解决这个问题。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_model.cpp" line="254"/>
        <source>Hearth adjusted this model&apos;s chat format.</source>
        <translation>Hearth 调整了此模型的对话格式。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_remote.cpp" line="24"/>
        <source>That connection no longer exists.</source>
        <translation>该连接已不存在。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_remote.cpp" line="55"/>
        <source>The server does not serve a model of that name any more.</source>
        <translation>服务器已不再提供该名称的模型。</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_controller_remote.cpp" line="56"/>
        <source>“%1” on %2 could not be used. %3</source>
        <translation>无法使用 %2 上的“%1”。%3</translation>
    </message>
</context>
<context>
    <name>hearth::app::ChatListModel</name>
    <message>
        <location filename="../app/chat/chat_list_model.cpp" line="14"/>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_list_model.cpp" line="16"/>
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_list_model.cpp" line="18"/>
        <source>Previous 7 days</source>
        <translation>过去 7 天</translation>
    </message>
    <message>
        <location filename="../app/chat/chat_list_model.cpp" line="20"/>
        <source>Older</source>
        <translation>更早</translation>
    </message>
</context>
<context>
    <name>hearth::app::Connections</name>
    <message>
        <location filename="../app/remote/connections.cpp" line="55"/>
        <source>No credential store is available, so API keys are kept in %1 (readable by anyone who can read your files).</source>
        <translation>没有可用的凭据存储，因此 API 密钥保存在 %1 中（任何能读取你文件的人都能读取）。</translation>
    </message>
    <message>
        <location filename="../app/remote/connections.cpp" line="73"/>
        <source>The API key could not be read from the credential store: %1. Enter it again in the connection&apos;s settings.</source>
        <translation>无法从凭据存储读取 API 密钥：%1。请在连接设置中重新输入。</translation>
    </message>
    <message>
        <location filename="../app/remote/connections.cpp" line="126"/>
        <source>Enter the server&apos;s base URL.</source>
        <translation>请输入服务器的基础 URL。</translation>
    </message>
    <message>
        <location filename="../app/remote/connections.cpp" line="128"/>
        <source>“%1” is not a URL such as http://192.168.1.20:8000/v1.</source>
        <translation>“%1”不是类似 http://192.168.1.20:8000/v1 的 URL。</translation>
    </message>
    <message>
        <location filename="../app/remote/connections.cpp" line="130"/>
        <source>The URL must start with http:// or https://.</source>
        <translation>URL 必须以 http:// 或 https:// 开头。</translation>
    </message>
    <message>
        <location filename="../app/remote/connections.cpp" line="226"/>
        <source>No credential store is available (%1), so API keys are kept in %2 (readable by anyone who can read your files).</source>
        <translation>没有可用的凭据存储（%1），因此 API 密钥保存在 %2 中（任何能读取你文件的人都能读取）。</translation>
    </message>
    <message>
        <location filename="../app/remote/connections.cpp" line="274"/>
        <source>The server serves no models.</source>
        <translation>服务器没有提供任何模型。</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/remote/connections.cpp" line="282"/>
        <source>%n model(s) served</source>
        <translation>
            <numerusform>提供 %n 个模型</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hearth::app::EngineWorker</name>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="104"/>
        <source>not enough memory: it needs about %1, this computer has %2</source>
        <translation>内存不足：约需 %1，这台电脑只有 %2</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="233"/>
        <source>no draft model is chosen</source>
        <translation>尚未选择草稿模型</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="242"/>
        <source>the draft model could not be loaded: %1</source>
        <translation>无法加载草稿模型：%1</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="272"/>
        <source>The KV cache type “%1” in Settings is not known (f16, f32, q8_0, q4_0).</source>
        <translation>“设置”中的 KV 缓存类型“%1”无法识别（f16、f32、q8_0、q4_0）。</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="363"/>
        <source>No model is loaded.</source>
        <translation>未加载模型。</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker_api.cpp" line="125"/>
        <source>The draft model is not used while the local API server is on: chats run in the server&apos;s batched steps, where only prompt lookup drafts.</source>
        <translation>本地 API 服务器开启时不使用草稿模型：聊天在服务器的批处理步骤中运行，那里只有提示查找会起草。</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="581"/>
        <source>This model was trained on %1 tokens, so chats use %1, not the %2 set here (“Beyond the training length” keeps %2).</source>
        <translation>此模型的训练长度为 %1 个词元，因此对话使用 %1，而不是此处设置的 %2（开启“超出训练长度”可保留 %2）。</translation>
    </message>
    <message>
        <location filename="../app/engine/engine_worker.cpp" line="586"/>
        <source>Chats use %1 tokens, more than the %2 this model was trained on: replies may lose coherence past %2.</source>
        <translation>对话使用 %1 个词元，超过此模型训练时的 %2：超过 %2 之后的回复可能失去连贯性。</translation>
    </message>
</context>
<context>
    <name>hearth::app::KeyStore</name>
    <message>
        <location filename="../app/remote/key_store.cpp" line="45"/>
        <location filename="../app/remote/key_store.cpp" line="65"/>
        <source>Hearth was built without a credential store</source>
        <translation>Hearth 构建时未包含凭据存储</translation>
    </message>
</context>
<context>
    <name>hearth::app::MessageModel</name>
    <message>
        <location filename="../app/chat/message_model.cpp" line="18"/>
        <source>%1 tokens · %2 tok/s</source>
        <translation>%1 个词元 · %2 词元/秒</translation>
    </message>
    <message>
        <location filename="../app/chat/message_model.cpp" line="21"/>
        <source>prompt %1 tokens: %2 reused, %3 computed at %4 tok/s</source>
        <translation>提示词 %1 个词元：复用 %2 个，计算 %3 个，%4 词元/秒</translation>
    </message>
    <message>
        <location filename="../app/chat/message_model.cpp" line="28"/>
        <source>first token %1 ms</source>
        <translation>首个词元 %1 毫秒</translation>
    </message>
</context>
<context>
    <name>hearth::app::RemoteEngine</name>
    <message>
        <location filename="../app/remote/remote_engine.cpp" line="180"/>
        <source>The server reported an error: %1</source>
        <translation>服务器报告了错误：%1</translation>
    </message>
    <message>
        <location filename="../app/remote/remote_engine.cpp" line="184"/>
        <source>The stream from %1 ended before the reply was complete.</source>
        <translation>来自 %1 的数据流在回复完成前结束了。</translation>
    </message>
</context>
<context>
    <name>hearth::app::StoreThread</name>
    <message>
        <location filename="../app/chat/store_thread.cpp" line="28"/>
        <source>The chat history could not be opened: %1</source>
        <translation>无法打开对话记录：%1</translation>
    </message>
    <message>
        <location filename="../app/chat/store_thread.cpp" line="32"/>
        <source>The chat history was damaged and has been moved to %1; a new one was started.</source>
        <translation>对话记录已损坏，已移至 %1，并新建了一份记录。</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/chat/store_thread.cpp" line="37"/>
        <source>%n reply(s) were interrupted when Hearth last closed; their text up to then was kept.</source>
        <translation>
            <numerusform>上次关闭 Hearth 时有 %n 条回复被中断，已保留中断前的内容。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="9"/>
        <source>Chat with language models on your own computer.</source>
        <translation>在你自己的电脑上与语言模型聊天。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="13"/>
        <source>Print the version and exit.</source>
        <translation>打印版本并退出。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="15"/>
        <source>Keep chats and settings in DIR.</source>
        <translation>将聊天和设置保存在 DIR 中。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="18"/>
        <source>Render the window into FILE (PNG) once it has settled, then exit.</source>
        <translation>窗口稳定后将其渲染为 FILE（PNG），然后退出。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="22"/>
        <source>Colour theme: light or dark.</source>
        <translation>颜色主题：light 或 dark。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="25"/>
        <source>Add a sample chat (with a code block) to the data folder and open it.</source>
        <translation>在数据文件夹中添加一个示例对话（含代码块）并打开它。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="28"/>
        <source>Open a panel at start: settings.</source>
        <translation>启动时打开面板：settings（设置）。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="31"/>
        <source>A .gguf model to open.</source>
        <translation>要打开的 .gguf 模型。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="45"/>
        <source>--theme must be light or dark</source>
        <translation>--theme 必须是 light 或 dark</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="50"/>
        <source>--show must be settings</source>
        <translation>--show 的值必须是 settings</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="53"/>
        <source>expected at most one model file</source>
        <translation>最多只能指定一个模型文件</translation>
    </message>
</context>
</TS>

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
        <location filename="../ui/Dialogs/AboutDialog.qml" line="45"/>
        <source>Version %1</source>
        <translation>版本 %1</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="54"/>
        <source>Local language models with their own inference engine. MIT licensed.</source>
        <translation>在本机运行的语言模型，自带推理引擎。MIT 许可。</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="60"/>
        <source>Commit</source>
        <translation>提交</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="62"/>
        <source>Build</source>
        <translation>构建</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="64"/>
        <source>Compiler</source>
        <translation>编译器</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="66"/>
        <source>Qt</source>
        <translation>Qt</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="68"/>
        <source>Backends built</source>
        <translation>已构建的后端</translation>
    </message>
    <message>
        <location filename="../ui/Dialogs/AboutDialog.qml" line="70"/>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
</context>
<context>
    <name>Banner</name>
    <message>
        <location filename="../ui/Components/Banner.qml" line="40"/>
        <source>Dismiss message</source>
        <translation>关闭消息</translation>
    </message>
    <message>
        <location filename="../ui/Components/Banner.qml" line="42"/>
        <source>Dismiss</source>
        <translation>关闭</translation>
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
        <location filename="../ui/Home/EmptyState.qml" line="22"/>
        <source>Welcome</source>
        <translation>欢迎</translation>
    </message>
    <message>
        <location filename="../ui/Home/EmptyState.qml" line="31"/>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Home/EmptyState.qml" line="39"/>
        <source>Chat with language models that run entirely on your own computer. Nothing you type leaves this machine.</source>
        <translation>与完全在你自己电脑上运行的语言模型聊天。你输入的内容不会离开这台机器。</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <location filename="../ui/Main.qml" line="19"/>
        <source>%1 — Hearth</source>
        <translation>%1 — Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="19"/>
        <location filename="../ui/Main.qml" line="48"/>
        <source>Hearth</source>
        <translation>Hearth</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="57"/>
        <source>Switch to light theme</source>
        <translation>切换到浅色主题</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="57"/>
        <source>Switch to dark theme</source>
        <translation>切换到深色主题</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="62"/>
        <source>About</source>
        <translation>关于</translation>
    </message>
    <message>
        <location filename="../ui/Main.qml" line="63"/>
        <source>About Hearth</source>
        <translation>关于 Hearth</translation>
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
    <name>ModelPicker</name>
    <message>
        <location filename="../app/core/model_picker.cpp" line="30"/>
        <source>“%1” is not a file on this computer. Download the model first, then drop the .gguf file here.</source>
        <translation>“%1”不是这台电脑上的文件。请先下载模型，再把 .gguf 文件拖放到这里。</translation>
    </message>
    <message>
        <location filename="../app/core/model_picker.cpp" line="35"/>
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
    <name>main</name>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="9"/>
        <source>Chat with language models on your own computer.</source>
        <translation>在你自己的电脑上与语言模型聊天。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="12"/>
        <source>Print the version and exit.</source>
        <translation>打印版本并退出。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="14"/>
        <source>Keep chats and settings in DIR.</source>
        <translation>将聊天和设置保存在 DIR 中。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="17"/>
        <source>Render the window into FILE (PNG) once it has settled, then exit.</source>
        <translation>窗口稳定后将其渲染为 FILE（PNG），然后退出。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="20"/>
        <source>Colour theme: light or dark.</source>
        <translation>颜色主题：light 或 dark。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="22"/>
        <source>A .gguf model to open.</source>
        <translation>要打开的 .gguf 模型。</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="37"/>
        <source>--theme must be light or dark</source>
        <translation>--theme 必须是 light 或 dark</translation>
    </message>
    <message>
        <location filename="../app/desktop/command_line.cpp" line="41"/>
        <source>expected at most one model file</source>
        <translation>最多只能指定一个模型文件</translation>
    </message>
</context>
</TS>

//===- ChatTemplate.cpp - Qwen (ChatML, Qwen3) and Llama 3 chat formats ---===//
//
// The chat templates of these families, written out in C++ instead of running
// their Jinja source: each function follows its template statement by
// statement (tools/function calling excepted), and the tests compare the
// output with the Jinja rendering of the real tokenizer_config.json.
//
//===----------------------------------------------------------------------===//

#include "TokenizerParts.h"

using namespace tpuc::llm;
using llvm::StringRef;

ChatStyle tpuc::llm::detectChatStyle(StringRef chatTemplate, llvm::ArrayRef<AddedToken> addedTokens) {
  ChatStyle style;
  if (!chatTemplate.empty()) {
    if (chatTemplate.contains("<|start_header_id|>")) {
      style.format = ChatFormat::Llama3;
      style.alwaysGenerationPrompt = !chatTemplate.contains("add_generation_prompt");
      return style;
    }
    if (chatTemplate.contains("<|im_start|>")) {
      style.format = chatTemplate.contains("<think>") ? ChatFormat::Qwen3 : ChatFormat::ChatML;
      if (style.format == ChatFormat::Qwen3)
        return style;
      // Qwen2/2.5 templates carry a built-in system prompt as a literal:
      // '<|im_start|>system\nYou are ...<|im_end|>\n' (the \n escaped).
      StringRef marker = "'<|im_start|>system\\n";
      size_t at = chatTemplate.find(marker);
      while (at != StringRef::npos) {
        StringRef rest = chatTemplate.substr(at + marker.size());
        size_t end = rest.find("<|im_end|>");
        StringRef body = rest.substr(0, end);
        if (end != StringRef::npos && !body.contains('\'') && !body.contains('{')) {
          std::string text;
          for (size_t i = 0; i < body.size(); ++i) {
            if (body[i] == '\\' && i + 1 < body.size() && body[i + 1] == 'n') {
              text += '\n';
              ++i;
            } else {
              text += body[i];
            }
          }
          style.defaultSystem = text;
          break;
        }
        at = chatTemplate.find(marker, at + marker.size());
      }
      return style;
    }
  }
  bool hasImStart = false, hasThink = false, hasHeader = false;
  for (const AddedToken &token : addedTokens) {
    hasImStart |= token.content == "<|im_start|>";
    hasThink |= token.content == "<think>";
    hasHeader |= token.content == "<|start_header_id|>";
  }
  if (hasHeader)
    style.format = ChatFormat::Llama3;
  else if (hasImStart)
    style.format = hasThink ? ChatFormat::Qwen3 : ChatFormat::ChatML;
  return style;
}

namespace {

/// Python's str.strip(chars) family.
StringRef stripLeft(StringRef text, StringRef chars) { return text.ltrim(chars); }
StringRef stripRight(StringRef text, StringRef chars) { return text.rtrim(chars); }

/// Jinja's `trim` (Python str.strip() on ASCII whitespace).
StringRef trimWhitespace(StringRef text) { return text.trim(" \t\n\r\v\f"); }

bool isToolResponse(StringRef content) {
  return content.starts_with("<tool_response>") && content.ends_with("</tool_response>");
}

/// Qwen's rendering of a run of tool results as one user turn.
void renderToolMessage(llvm::ArrayRef<ChatMessage> messages, size_t i, std::string &out) {
  if (i == 0 || messages[i - 1].role != "tool")
    out += "<|im_start|>user";
  out += "\n<tool_response>\n" + messages[i].content + "\n</tool_response>";
  if (i + 1 == messages.size() || messages[i + 1].role != "tool")
    out += "<|im_end|>\n";
}

std::string renderQwen3(llvm::ArrayRef<ChatMessage> messages, const ChatOptions &options) {
  std::string out;
  if (!messages.empty() && messages[0].role == "system")
    out += "<|im_start|>system\n" + messages[0].content + "<|im_end|>\n";
  // The last real user query: assistant turns after it keep their thinking.
  size_t lastQuery = messages.empty() ? 0 : messages.size() - 1;
  for (size_t k = messages.size(); k-- > 0;)
    if (messages[k].role == "user" && !isToolResponse(messages[k].content)) {
      lastQuery = k;
      break;
    }
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage &message = messages[i];
    if (message.role == "user" || (message.role == "system" && i != 0)) {
      out += "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n";
    } else if (message.role == "assistant") {
      StringRef content = message.content;
      std::string reasoning;
      size_t close = content.find("</think>");
      if (close != StringRef::npos) {
        // content.split('</think>')[-1].lstrip('\n')
        size_t last = content.rfind("</think>");
        StringRef after = content.substr(last + strlen("</think>"));
        // content.split('</think>')[0].rstrip('\n').split('<think>')[-1]
        StringRef before = stripRight(content.substr(0, close), "\n");
        size_t open = before.rfind("<think>");
        if (open != StringRef::npos)
          before = before.substr(open + strlen("<think>"));
        reasoning = stripLeft(before, "\n").str();
        content = stripLeft(after, "\n");
      }
      bool last = i + 1 == messages.size();
      if (i > lastQuery && (last || !reasoning.empty()))
        out += "<|im_start|>" + message.role + "\n<think>\n" +
               stripRight(stripLeft(reasoning, "\n"), "\n").str() + "\n</think>\n\n" +
               stripLeft(content, "\n").str();
      else
        out += "<|im_start|>" + message.role + "\n" + content.str();
      out += "<|im_end|>\n";
    } else if (message.role == "tool") {
      renderToolMessage(messages, i, out);
    }
  }
  if (options.addGenerationPrompt) {
    out += "<|im_start|>assistant\n";
    if (options.enableThinking && !*options.enableThinking)
      out += "<think>\n\n</think>\n\n";
  }
  return out;
}

std::string renderChatML(llvm::ArrayRef<ChatMessage> messages, const ChatOptions &options,
                         StringRef defaultSystem) {
  std::string out;
  bool hasSystem = !messages.empty() && messages[0].role == "system";
  if (!hasSystem && !defaultSystem.empty())
    out += "<|im_start|>system\n" + defaultSystem.str() + "<|im_end|>\n";
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage &message = messages[i];
    if (message.role == "tool")
      renderToolMessage(messages, i, out);
    else
      out += "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n";
  }
  if (options.addGenerationPrompt)
    out += "<|im_start|>assistant\n";
  return out;
}

std::string renderLlama3(llvm::ArrayRef<ChatMessage> messages, const ChatOptions &options, StringRef bosText,
                         bool alwaysGenerationPrompt) {
  // The template puts bos_token in front of the first message only.
  std::string out = messages.empty() ? "" : bosText.str();
  for (const ChatMessage &message : messages)
    out += "<|start_header_id|>" + message.role + "<|end_header_id|>\n\n" +
           trimWhitespace(message.content).str() + "<|eot_id|>";
  // Llama 3.0's template always ends with the assistant header; 3.1's and
  // later honour add_generation_prompt.
  if (options.addGenerationPrompt || alwaysGenerationPrompt)
    out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
  return out;
}

} // namespace

std::string tpuc::llm::renderChat(const ChatStyle &style, llvm::ArrayRef<ChatMessage> messages,
                                  const ChatOptions &options, StringRef bosText) {
  switch (style.format) {
  case ChatFormat::Qwen3:
    return renderQwen3(messages, options);
  case ChatFormat::ChatML:
    return renderChatML(messages, options, style.defaultSystem);
  case ChatFormat::Llama3:
    return renderLlama3(messages, options, bosText, style.alwaysGenerationPrompt);
  case ChatFormat::None:
    break;
  }
  return {};
}

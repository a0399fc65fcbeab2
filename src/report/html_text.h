// Putting untrusted text (candidate code, logs, reasons, file names) into an HTML page.
// Candidate code and logs are hostile: nothing they hold may end a <script> element, open
// markup or run script. HtmlEscape is for element text and attribute values; ScriptJson is for
// data placed inside <script type="application/json">: the JSON text with '<', '>', '&' and
// U+2028/U+2029 written as \u escapes (so "</script>" cannot appear), invalid UTF-8 replaced;
// ScriptText is for a trusted script (D3) placed inside <script>: any "</script" is broken up.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cuco {

std::string HtmlEscape(const std::string& s);
std::string ScriptJson(const nlohmann::json& j);
std::string ScriptText(const std::string& js);

}  // namespace cuco

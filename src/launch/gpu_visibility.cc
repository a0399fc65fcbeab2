#include "launch/gpu_visibility.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace cuco {

std::string VisibleDevicesFor(const std::vector<int>& ordinals, const char* parent_visible) {
  std::vector<std::string> parent;
  if (parent_visible != nullptr) {
    std::stringstream in(parent_visible);
    for (std::string item; std::getline(in, item, ',');) {
      while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.pop_back();
      while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.erase(item.begin());
      parent.push_back(item);
    }
  }
  std::string list;
  for (int g : ordinals) {
    if (!list.empty()) list += ',';
    list += !parent.empty() && g >= 0 && static_cast<size_t>(g) < parent.size() ? parent[g] : std::to_string(g);
  }
  return list;
}

namespace {

// "0000:18:00.0" (the driver's /proc spelling, which sorts in bus order), or "" when not a bus id.
std::string NormalBusId(const std::string& pci_bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(pci_bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4) return "";
  char name[32];
  std::snprintf(name, sizeof name, "%04x:%02x:%02x.%x", domain, bus, device, function);
  return name;
}

}  // namespace

std::string SandboxVisibleDevices(const std::vector<std::string>& pci_bus_ids) {
  std::vector<std::string> ids;
  for (const std::string& b : pci_bus_ids) ids.push_back(NormalBusId(b));
  const bool known = std::none_of(ids.begin(), ids.end(), [](const std::string& b) { return b.empty(); });
  std::string list;
  for (size_t i = 0; i < ids.size(); ++i) {
    size_t place = i;
    if (known) place = static_cast<size_t>(std::count_if(ids.begin(), ids.end(), [&](const std::string& b) { return b < ids[i]; }));
    list += i ? "," : "";
    list += std::to_string(place);
  }
  return list;
}

int DeviceMinorOf(const std::string& pci_bus_id, const std::string& proc_dir) {
  const std::string name = NormalBusId(pci_bus_id);
  if (name.empty()) return -1;
  std::ifstream in(proc_dir + "/" + name + "/information");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Device Minor:", 0) != 0) continue;
    int minor = -1;
    return std::sscanf(line.c_str() + 13, "%d", &minor) == 1 && minor >= 0 ? minor : -1;
  }
  return -1;
}

}  // namespace cuco

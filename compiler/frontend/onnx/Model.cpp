//===- Model.cpp - ONNX protobuf reading and TensorProto conversion -------===//
#include "compiler/frontend/onnx/Model.h"
#include "onnx.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace kiln::onnx {

/// A repeatable NAME=... option names each NAME once: otherwise the last
/// value would silently win.
template <class Map>
static bool givenOnce(const Map &given, const std::string &name,
                      const std::string &option, const std::string &spec,
                      std::string &error) {
  if (!given.count(name))
    return true;
  error = option + "=" + spec + ": " + option + " gives '" + name +
          "' a second time";
  return false;
}

bool parseInputShape(const std::string &spec, InputShapes &shapes,
                     std::string &error) {
  size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    error = "--input-shape=" + spec + ": expected NAME=D0,D1,... (e.g. "
            "input=1,3,224,224)";
    return false;
  }
  std::vector<int64_t> dims;
  std::stringstream ss(spec.substr(eq + 1));
  std::string item;
  while (std::getline(ss, item, ',')) {
    char *end = nullptr;
    errno = 0;
    long long v = strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end || errno || v < 0) {
      error = "--input-shape=" + spec + ": '" + item +
              "' is not a non-negative dimension";
      return false;
    }
    dims.push_back(v);
  }
  const std::string name = spec.substr(0, eq);
  if (!givenOnce(shapes, name, "--input-shape", spec, error))
    return false;
  shapes[name] = {dims, ""};
  return true;
}

bool parseTensorBinding(const std::string &spec, const std::string &option,
                        std::map<std::string, Tensor> &values,
                        std::string &error) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    error = option + "=" + spec + ": expected NAME=FILE.pb";
    return false;
  }
  Tensor t;
  if (!readTensorFile(spec.substr(eq + 1), t, error)) {
    error = option + "=" + spec + ": " + error;
    return false;
  }
  const std::string name = spec.substr(0, eq);
  if (!givenOnce(values, name, option, spec, error))
    return false;
  values[name] = std::move(t);
  return true;
}

static bool parseFile(const std::string &path,
                      google::protobuf::MessageLite &msg, const char *kind,
                      std::string &error) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    error = "cannot open " + path + ": " + strerror(errno);
    return false;
  }
  // A directory opens, then fails every read, which protobuf takes for an
  // empty (valid) message.
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    error = "cannot read " + path + ": not a regular file";
    return false;
  }
  google::protobuf::io::FileInputStream raw(fd);
  bool ok;
  {
    google::protobuf::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(INT32_MAX);
    ok = msg.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  const int readErrno = raw.GetErrno();
  close(fd);
  if (readErrno != 0) {
    error = "cannot read " + path + ": " + strerror(readErrno);
    return false;
  }
  if (!ok) {
    error = path + ": not a valid ONNX " + std::string(kind) +
            " (protobuf parse failed)";
    return false;
  }
  return true;
}

// What every model must have once parsed: a graph and an opset Kiln knows.
static std::unique_ptr<Model> checkModel(std::unique_ptr<Model> m,
                                         std::string &error) {
  const std::string &path = m->path;
  if (!m->proto->has_graph()) {
    error = path + ": not a valid ONNX model (no graph)";
    return nullptr;
  }
  for (const auto &op : m->proto->opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx")
      m->opset = op.version();
  }
  if (m->proto->opset_import_size() == 0)
    m->opset = 1; // IR version 2 models without opset_import
  if (m->opset < kMinOpset || m->opset > kMaxOpset) {
    error = path + ": opset " + std::to_string(m->opset) +
            " of the default domain is not supported (Kiln imports opsets up to " +
            std::to_string(kMaxOpset) + ")";
    return nullptr;
  }
  return m;
}

std::unique_ptr<Model> loadModel(const std::string &path, std::string &error) {
  auto m = std::make_unique<Model>();
  m->path = path;
  size_t slash = path.rfind('/');
  m->dir = slash == std::string::npos ? "." : path.substr(0, slash);
  m->proto = std::make_shared<::onnx::ModelProto>();
  if (!parseFile(path, *m->proto, "model", error))
    return nullptr;
  return checkModel(std::move(m), error);
}

std::unique_ptr<Model> loadModelFromBuffer(const void *data, size_t size,
                                           const std::string &name,
                                           std::string &error) {
  auto m = std::make_unique<Model>();
  m->path = name;
  m->dir = ".";
  m->proto = std::make_shared<::onnx::ModelProto>();
  if (size > (size_t)INT32_MAX ||
      !m->proto->ParseFromArray(data, (int)size)) {
    error = name + ": not a valid ONNX model (protobuf parse failed)";
    return nullptr;
  }
  return checkModel(std::move(m), error);
}

/// Copies a repeated field of one C type into elements of another.
template <class To, class Field>
static void copyField(const Field &field, std::vector<uint8_t> &data) {
  data.resize(field.size() * sizeof(To));
  To *p = reinterpret_cast<To *>(data.data());
  for (int i = 0; i < field.size(); ++i)
    p[i] = (To)field.Get(i);
}

bool readTensor(const ::onnx::TensorProto &t, const std::string &dir,
                const std::string &what, Tensor &out, std::string &error,
                uint64_t maxBytes) {
  out.dtype = t.data_type();
  out.shape.assign(t.dims().begin(), t.dims().end());
  for (int64_t d : out.shape)
    if (d < 0) {
      error = what + ": negative dimension in shape " + shapeString(out.shape);
      return false;
    }
  size_t elem = dtypeSize(out.dtype);
  if (elem == 0) {
    error = what + ": element type " + dtypeName(out.dtype) +
            " is not supported (Kiln holds bool, integers, float16, float and "
            "double)";
    return false;
  }
  std::string why;
  if (!checkTensorSize(out.shape, out.dtype, why, maxBytes)) {
    error = what + " " + why;
    return false;
  }
  const size_t expected = (size_t)out.numel() * elem;
  out.isConst = true;
  out.data.clear();
  const char *source = "raw_data";
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto &kv : t.external_data()) {
      if (kv.key() == "location") {
        location = kv.value();
      } else if (kv.key() == "offset" || kv.key() == "length") {
        int64_t &v = kv.key() == "offset" ? offset : length;
        const std::string &text = kv.value();
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || v < 0) {
          error = what + ": external data " + kv.key() + " '" + text +
                  "' is not a non-negative 64-bit integer";
          return false;
        }
      }
    }
    if (location.empty() || location[0] == '/' ||
        location.find("..") != std::string::npos) {
      error = what + ": external data location '" + location +
              "' must be a relative path inside the model's directory";
      return false;
    }
    std::string file = dir + "/" + location;
    struct stat st;
    if (::stat(file.c_str(), &st) != 0) {
      error = what + ": missing external data file " + file;
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      error = what + ": external data " + file + " is not a regular file";
      return false;
    }
    const int64_t size = st.st_size;
    if (offset > size || (length >= 0 && length > size - offset)) {
      error = what + ": external data at offset " + std::to_string(offset) +
              (length >= 0 ? ", " + std::to_string(length) + " bytes," : "") +
              " lies outside " + file + " (" + std::to_string(size) +
              " bytes)";
      return false;
    }
    if (length < 0)
      length = size - offset;
    // Checked before anything is read: the file may be far larger.
    if ((uint64_t)length != expected) {
      error = what + ": " + std::to_string(length) +
              " bytes of external data for shape " + shapeString(out.shape) +
              " of " + dtypeName(out.dtype) + " (expected " +
              std::to_string(expected) + ")";
      return false;
    }
    std::ifstream in(file, std::ios::binary);
    out.data.resize(expected);
    if (!in.seekg(offset) ||
        !in.read(reinterpret_cast<char *>(out.data.data()), length)) {
      error = what + ": cannot read " + std::to_string(length) +
              " bytes of external data from " + file;
      return false;
    }
    source = "external data";
  } else if (t.has_raw_data()) {
    out.data.assign(t.raw_data().begin(), t.raw_data().end());
  } else {
    switch (out.dtype) {
    case F32: copyField<float>(t.float_data(), out.data); source = "float_data"; break;
    case F64: copyField<double>(t.double_data(), out.data); source = "double_data"; break;
    case I64: copyField<int64_t>(t.int64_data(), out.data); source = "int64_data"; break;
    case U32: copyField<uint32_t>(t.uint64_data(), out.data); source = "uint64_data"; break;
    case U64: copyField<uint64_t>(t.uint64_data(), out.data); source = "uint64_data"; break;
    case I32: copyField<int32_t>(t.int32_data(), out.data); source = "int32_data"; break;
    case I16: copyField<int16_t>(t.int32_data(), out.data); source = "int32_data"; break;
    case U16: case F16: copyField<uint16_t>(t.int32_data(), out.data); source = "int32_data"; break;
    case I8: copyField<int8_t>(t.int32_data(), out.data); source = "int32_data"; break;
    case U8: case BOOL: copyField<uint8_t>(t.int32_data(), out.data); source = "int32_data"; break;
    }
  }
  if (out.data.size() != expected) {
    error = what + ": " + std::to_string(out.data.size()) + " bytes of " +
            source + " for shape " + shapeString(out.shape) + " of " +
            dtypeName(out.dtype) + " (expected " + std::to_string(expected) +
            ")";
    return false;
  }
  return true;
}

bool readTensorFile(const std::string &path, Tensor &out, std::string &error) {
  ::onnx::TensorProto t;
  if (!parseFile(path, t, "TensorProto", error))
    return false;
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  out.name = t.name();
  return readTensor(t, dir, path, out, error);
}

bool writeTensorFile(const std::string &path, const Tensor &t,
                     std::string &error) {
  ::onnx::TensorProto p;
  p.set_name(t.name);
  p.set_data_type(t.dtype);
  for (int64_t d : t.shape)
    p.add_dims(d);
  p.set_raw_data(t.data.data(), t.data.size());
  std::ofstream out(path, std::ios::binary);
  if (!out || !p.SerializeToOstream(&out)) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}
} // namespace kiln::onnx

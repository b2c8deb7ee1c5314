#include "record_stream.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <cstdint>
#include <stdexcept>

namespace synaptic::session {

// Serialized straight into the chunk's tail: a StringOutputStream per record
// zero-fills the string's whole capacity on every Next() (~1 MiB per record
// once chunks are large). Same bytes as SerializeDelimited.
void appendRecord(std::string &raw, const pb::Record &record) {
    using google::protobuf::io::CodedOutputStream;
    const std::size_t size = record.ByteSizeLong();
    const std::size_t at = raw.size();
    raw.resize(at + std::size_t(CodedOutputStream::VarintSize32(std::uint32_t(size))) + size);
    auto *p = reinterpret_cast<std::uint8_t *>(raw.data() + at);
    p = CodedOutputStream::WriteVarint32ToArray(std::uint32_t(size), p);
    record.SerializeWithCachedSizesToArray(p);
}

std::vector<pb::Record> parseRecords(const std::string &raw) {
    std::vector<pb::Record> records;
    google::protobuf::io::ArrayInputStream in(raw.data(), int(raw.size()));
    for (std::size_t index = 0;; ++index) {
        const auto position = in.ByteCount();
        auto where = [&] { return "record " + std::to_string(index) + " at chunk byte " + std::to_string(position); };
        // Every record the writer makes has a payload: an empty one is
        // corruption (and a run of zero bytes would otherwise be millions).
        if (position < static_cast<std::int64_t>(raw.size()) && raw[std::size_t(position)] == '\0')
            throw std::runtime_error(where() + " is empty");
        pb::Record record;
        bool cleanEof = false;
        if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&record, &in, &cleanEof)) {
            if (cleanEof)
                break;
            throw std::runtime_error(where() + " is cut or malformed");
        }
        // A newer writer's record kinds are skipped, not kept: forward
        // compatible, and memory stays bounded by what this build uses.
        if (record.payload_case() != pb::Record::PAYLOAD_NOT_SET)
            records.push_back(std::move(record));
    }
    return records;
}

} // namespace synaptic::session

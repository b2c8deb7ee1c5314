#include "record_stream.h"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <stdexcept>

namespace synaptic::session {

void appendRecord(std::string &raw, const pb::Record &record) {
    google::protobuf::io::StringOutputStream out(&raw);
    google::protobuf::util::SerializeDelimitedToZeroCopyStream(record, &out);
}

std::vector<pb::Record> parseRecords(const std::string &raw) {
    std::vector<pb::Record> records;
    google::protobuf::io::ArrayInputStream in(raw.data(), int(raw.size()));
    for (;;) {
        const auto position = in.ByteCount();
        pb::Record record;
        bool cleanEof = false;
        if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&record, &in, &cleanEof)) {
            if (cleanEof)
                break;
            throw std::runtime_error("record " + std::to_string(records.size()) + " at chunk byte " +
                                     std::to_string(position) + " is cut or malformed");
        }
        records.push_back(std::move(record));
    }
    return records;
}

} // namespace synaptic::session

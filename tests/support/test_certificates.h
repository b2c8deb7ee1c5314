#pragma once

#include <QString>

namespace synaptic::test {

// A CA and one node certificate signed by it (subjectAltName 127.0.0.1 and
// localhost, usable as server and client: every live node is both), made
// with the openssl command line in `dir` at test time: ca.pem, node.pem,
// node.key. Also a second CA (other-ca.pem) for negative cases, and a
// token file. Returns an empty string, or what failed.
QString makeTestCertificates(const QString &dir);

} // namespace synaptic::test

#include "test_certificates.h"

#include <QFile>
#include <QProcess>
#include <QStringList>

namespace synaptic::test {

namespace {

QString run(const QString &dir, const QStringList &arguments) {
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start("openssl", arguments);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return "openssl " + arguments.join(' ') + " failed: " + p.readAllStandardError();
    return {};
}

bool write(const QString &path, const QByteArray &content) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(content) == content.size();
}

} // namespace

QString makeTestCertificates(const QString &dir) {
    if (!write(dir + "/openssl.cnf", "[req]\n"
                                     "distinguished_name = dn\n"
                                     "[dn]\n"
                                     "[ca_ext]\n"
                                     "basicConstraints = critical,CA:TRUE\n"
                                     "keyUsage = critical,keyCertSign,cRLSign\n"
                                     "subjectKeyIdentifier = hash\n"
                                     "[node_ext]\n"
                                     "basicConstraints = critical,CA:FALSE\n"
                                     "keyUsage = critical,digitalSignature\n"
                                     "extendedKeyUsage = serverAuth,clientAuth\n"
                                     "subjectAltName = IP:127.0.0.1,DNS:localhost\n"))
        return "cannot write openssl.cnf in " + dir;
    const QStringList key{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"};
    for (const QString ca : {"ca", "other-ca"}) {
        if (auto e = run(dir, QStringList{"req", "-x509", "-config", "openssl.cnf", "-extensions", "ca_ext"} + key +
                                  QStringList{"-days", "2", "-subj", "/CN=synaptic-test-" + ca, "-keyout", ca + ".key",
                                              "-out", ca + ".pem"});
            !e.isEmpty())
            return e;
    }
    if (auto e = run(dir, QStringList{"req", "-new", "-config", "openssl.cnf"} + key +
                              QStringList{"-subj", "/CN=synaptic-node", "-keyout", "node.key", "-out", "node.csr"});
        !e.isEmpty())
        return e;
    if (auto e = run(dir, {"x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                           "-days", "2", "-extfile", "openssl.cnf", "-extensions", "node_ext", "-out", "node.pem"});
        !e.isEmpty())
        return e;
    if (!write(dir + "/token", "live-cluster-test-token-7f3a9c\n") || !write(dir + "/wrong-token", "not-it\n"))
        return "cannot write the token files in " + dir;
    return {};
}

} // namespace synaptic::test

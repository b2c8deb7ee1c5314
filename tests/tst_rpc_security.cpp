// The security layer of the live cluster's gRPC services, on real sockets on
// 127.0.0.1 with real certificates that the openssl command line makes at test
// time. The server serves the standard health service plus a probe method that
// counts how often a handler really ran, so "rejected" means "never handled".
#include "core/rpc/security/bearer_token.h"
#include "core/rpc/security/channel_security.h"
#include "core/rpc/security/loopback.h"
#include "core/rpc/security/security_options.h"
#include "core/rpc/security/server_security.h"
#include "core/rpc/security/token_gate.h"

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>

using namespace synaptic::rpc;

Q_DECLARE_METATYPE(grpc::StatusCode)

namespace {

const std::string kHealthCheck = "/grpc.health.v1.Health/Check";
const std::string kProbe = "/synaptic.test.Probe/Echo";
// grpc.health.v1.HealthCheckResponse{status: SERVING} on the wire.
const std::string kServingReply("\x08\x01", 2);
const char *kRightToken = "s3cret-cluster-token";

// Handles every method no service registered (here: kProbe), counts the
// calls that reached it and notes whether any still carried the token.
// Runs on gRPC's callback threads.
class ProbeService final : public grpc::CallbackGenericService {
public:
    int calls() const { return m_calls.load(); }
    bool sawToken() const { return m_sawToken.load(); }

private:
    class Echo final : public grpc::ServerGenericBidiReactor {
    public:
        Echo() { StartRead(&m_buffer); }
        void OnReadDone(bool ok) override {
            if (ok)
                StartWriteAndFinish(&m_buffer, grpc::WriteOptions(), grpc::Status::OK);
            else
                Finish(grpc::Status(grpc::StatusCode::INTERNAL, "no request"));
        }
        void OnDone() override { delete this; }

    private:
        grpc::ByteBuffer m_buffer;
    };

    grpc::ServerGenericBidiReactor *CreateReactor(grpc::GenericCallbackServerContext *context) override {
        ++m_calls;
        const grpc::string_ref key(kAuthorizationKey.data(), kAuthorizationKey.size());
        if (context->client_metadata().count(key))
            m_sawToken = true;
        return new Echo;
    }

    std::atomic<int> m_calls{0};
    std::atomic<bool> m_sawToken{false};
};

// A real server secured by the module, capturing the gate's log lines.
class TestServer {
public:
    // Returns the bound port, 0 on failure.
    int start(const LoadedSecurity &security, const std::string &address = "127.0.0.1:0") {
        m_gate = std::make_shared<TokenGate>(security.token);
        m_gate->setLogSink([this](const std::string &line) {
            const std::lock_guard lock(m_mutex);
            m_lines << QString::fromStdString(line);
        });
        grpc::ServerBuilder builder;
        int port = 0;
        builder.AddListeningPort(address, makeServerCredentials(security, address, m_gate), &port);
        builder.RegisterCallbackGenericService(&m_probe);
        m_server = builder.BuildAndStart();
        if (!m_server)
            return 0;
        m_server->GetHealthCheckService()->SetServingStatus(true);
        return port;
    }

    ~TestServer() {
        if (m_server) {
            m_server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
            m_server->Wait();
        }
    }

    QStringList logLines() {
        const std::lock_guard lock(m_mutex);
        return m_lines;
    }
    std::uint64_t rejected() const { return m_gate->rejectedCalls(); }
    int handled() const { return m_probe.calls(); }
    bool handlerSawToken() const { return m_probe.sawToken(); }

private:
    // Declared in the order that destroys the server before what it calls.
    std::mutex m_mutex;
    QStringList m_lines;
    ProbeService m_probe;
    std::shared_ptr<TokenGate> m_gate;
    std::unique_ptr<grpc::Server> m_server;
};

struct CallResult {
    grpc::StatusCode code;
    std::string message;
    std::string reply;
};

// One unary call through a generic stub; `authorization`, when given, is
// added by hand as a plain client would.
CallResult callMethod(const std::shared_ptr<grpc::Channel> &channel, const std::string &method,
                      const std::string &authorization = {}) {
    grpc::GenericStub stub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!authorization.empty())
        context.AddMetadata(std::string(kAuthorizationKey), authorization);
    grpc::Slice empty("", 0);
    grpc::ByteBuffer request(&empty, 1), response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                   [&done](grpc::Status status) { done.set_value(std::move(status)); });
    const grpc::Status status = done.get_future().get();
    std::string reply;
    std::vector<grpc::Slice> slices;
    if (status.ok() && response.Dump(&slices).ok()) {
        for (const grpc::Slice &slice : slices)
            reply.append(reinterpret_cast<const char *>(slice.begin()), slice.size());
    }
    return {status.error_code(), status.error_message(), reply};
}

QString codeName(grpc::StatusCode code) {
    switch (code) {
    case grpc::StatusCode::OK:
        return "OK";
    case grpc::StatusCode::UNAUTHENTICATED:
        return "UNAUTHENTICATED";
    case grpc::StatusCode::UNAVAILABLE:
        return "UNAVAILABLE";
    default:
        return QString("code %1").arg(int(code));
    }
}

} // namespace

class TestRpcSecurity : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const QString &name) const { return m_dir.filePath(name).toStdString(); }

    bool writeFile(const QString &name, const QByteArray &content) {
        QFile file(m_dir.filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
    }

    // Runs openssl in the temporary folder; on failure, says why in `error`.
    bool openssl(const QStringList &arguments, QString *error) {
        QProcess process;
        process.setWorkingDirectory(m_dir.path());
        process.start("openssl", arguments);
        if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit ||
            process.exitCode() != 0) {
            *error = "openssl " + arguments.join(' ') + " failed: " + process.readAllStandardError();
            return false;
        }
        return true;
    }

    bool makeCa(const QString &name, QString *error) {
        return openssl({"req", "-x509", "-config", "openssl.cnf", "-extensions", "ca_ext", "-newkey", "ec",
                        "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                        "/CN=" + name, "-keyout", name + ".key", "-out", name + ".pem"},
                       error);
    }

    bool makeLeaf(const QString &name, const QString &ca, const QString &extensions, QString *error) {
        return openssl({"req", "-new", "-config", "openssl.cnf", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=" + name, "-keyout",
                        name + ".key", "-out", name + ".csr"},
                       error) &&
               openssl({"x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
                        "-CAcreateserial", "-days", "2", "-extfile", "openssl.cnf", "-extensions", extensions,
                        "-out", name + ".pem"},
                       error);
    }

    SecurityOptions serverOptions(bool mutualTls = false) const {
        SecurityOptions options;
        options.certFile = path("server.pem");
        options.keyFile = path("server.key");
        options.caFile = path("ca.pem");
        options.tokenFile = path("token");
        options.mutualTls = mutualTls;
        return options;
    }

    SecurityOptions plaintextOptions(const QString &tokenFile = "token") const {
        SecurityOptions options;
        options.tokenFile = path(tokenFile);
        options.insecure = true;
        return options;
    }

    // A TLS channel built from test rows: `ca` and `cert` name files in the
    // temporary folder ("" for none); token "right", "wrong" or "none". The
    // module always sends a token, so "none" is built with plain gRPC.
    std::shared_ptr<grpc::Channel> tlsChannel(const QString &target, const QString &ca, const QString &cert,
                                              const QString &token, const QString &nameOverride) {
        SecurityOptions options;
        options.caFile = path(ca + ".pem");
        if (!cert.isEmpty()) {
            options.certFile = path(cert + ".pem");
            options.keyFile = path(cert + ".key");
        }
        options.tokenFile = path(token == "wrong" ? "wrong-token" : "token");
        options.serverNameOverride = nameOverride.toStdString();
        const LoadedSecurity loaded = loadSecurity(options);
        if (token != "none")
            return makeChannel(loaded, target.toStdString());
        grpc::ChannelArguments args;
        applyServerNameOverride(args, loaded);
        return grpc::CreateCustomChannel(target.toStdString(),
                                         grpc::SslCredentials({loaded.caPem, loaded.keyPem, loaded.certPem}), args);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY2(!QStandardPaths::findExecutable("openssl").isEmpty(),
                 "the openssl command is needed to make test certificates (Debian package openssl)");
        QVERIFY(writeFile("openssl.cnf", "[req]\n"
                                         "distinguished_name = dn\n"
                                         "[dn]\n"
                                         "[ca_ext]\n"
                                         "basicConstraints = critical,CA:TRUE\n"
                                         "keyUsage = critical,keyCertSign,cRLSign\n"
                                         "subjectKeyIdentifier = hash\n"
                                         "[server_ext]\n"
                                         "basicConstraints = critical,CA:FALSE\n"
                                         "keyUsage = critical,digitalSignature\n"
                                         "extendedKeyUsage = serverAuth\n"
                                         "subjectAltName = IP:127.0.0.1,DNS:localhost\n"
                                         "[client_ext]\n"
                                         "basicConstraints = critical,CA:FALSE\n"
                                         "keyUsage = critical,digitalSignature\n"
                                         "extendedKeyUsage = clientAuth\n"));
        QString error;
        QVERIFY2(makeCa("ca", &error), qPrintable(error));
        QVERIFY2(makeLeaf("server", "ca", "server_ext", &error), qPrintable(error));
        QVERIFY2(makeLeaf("client", "ca", "client_ext", &error), qPrintable(error));
        // An unrelated CA and a client certificate it signed, for the negative cases.
        QVERIFY2(makeCa("other-ca", &error), qPrintable(error));
        QVERIFY2(makeLeaf("other-client", "other-ca", "client_ext", &error), qPrintable(error));

        QVERIFY(writeFile("token", QByteArray(kRightToken) + "\n"));
        QVERIFY(writeFile("wrong-token", "not-the-cluster-token\n"));
        QVERIFY(writeFile("empty-token", ""));
        QVERIFY(writeFile("newline-token", "\n"));
        QVERIFY(writeFile("spaced-token", "two words\n"));
        QVERIFY(writeFile("crlf-token", "abc\r\n"));
        QVERIFY(writeFile("bare-token", "abc"));
        QVERIFY(writeFile("not-pem", "hello\n"));

        grpc::EnableDefaultHealthCheckService(true);
    }

    void loopbackClassification_data() {
        QTest::addColumn<QString>("address");
        QTest::addColumn<bool>("loopback");
        QTest::newRow("127.0.0.1") << "127.0.0.1:5000" << true;
        QTest::newRow("127.8.9.10") << "127.8.9.10:5000" << true;
        QTest::newRow("localhost") << "localhost:5000" << true;
        QTest::newRow("LOCALHOST") << "LOCALHOST:5000" << true;
        QTest::newRow("localhost, no port") << "localhost" << true;
        QTest::newRow("[::1]") << "[::1]:5000" << true;
        QTest::newRow("v4-mapped loopback") << "[::ffff:127.0.0.1]:5000" << true;
        QTest::newRow("unix path") << "unix:/tmp/synaptic.sock" << true;
        QTest::newRow("unix abstract") << "unix-abstract:synaptic" << true;
        QTest::newRow("ipv4 scheme") << "ipv4:127.0.0.1:5000" << true;
        QTest::newRow("ipv6 scheme") << "ipv6:[::1]:5000" << true;
        QTest::newRow("dns scheme") << "dns:///localhost:5000" << true;
        QTest::newRow("0.0.0.0") << "0.0.0.0:5000" << false;
        QTest::newRow("[::]") << "[::]:5000" << false;
        QTest::newRow("10.1.2.3") << "10.1.2.3:5000" << false;
        QTest::newRow("192.168.1.1") << "192.168.1.1:5000" << false;
        QTest::newRow("public v6") << "[2001:db8::1]:5000" << false;
        QTest::newRow("v4-mapped public") << "[::ffff:10.0.0.1]:5000" << false;
        QTest::newRow("hostname") << "center.example.com:5000" << false;
        QTest::newRow("localhost lookalike") << "localhost.example.com:5000" << false;
        QTest::newRow("empty host") << ":5000" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("ipv4 list with one remote") << "ipv4:127.0.0.1:1,10.0.0.1:1" << false;
        QTest::newRow("dns scheme, remote") << "dns:///10.1.2.3:5000" << false;
    }

    void loopbackClassification() {
        QFETCH(QString, address);
        QFETCH(bool, loopback);
        QCOMPARE(isLoopbackAddress(address.toStdString()), loopback);
    }

    void tokenFileIsTrimmed_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("token");
        QTest::newRow("newline") << "token" << kRightToken;
        QTest::newRow("CR LF") << "crlf-token" << "abc";
        QTest::newRow("no newline") << "bare-token" << "abc";
    }

    void tokenFileIsTrimmed() {
        QFETCH(QString, file);
        QFETCH(QString, token);
        QCOMPARE(QString::fromStdString(readTokenFile(path(file))), token);
    }

    void badTokenFileNamesIt_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("missing") << "no-such-token";
        QTest::newRow("empty") << "empty-token";
        QTest::newRow("only a newline") << "newline-token";
        QTest::newRow("space inside") << "spaced-token";
        QTest::newRow("a directory") << ".";
    }

    void badTokenFileNamesIt() {
        QFETCH(QString, file);
        const std::string name = path(file);
        try {
            readTokenFile(name);
            QFAIL("expected an error");
        } catch (const std::runtime_error &e) {
            QVERIFY2(std::string(e.what()).find(name) != std::string::npos, e.what());
        }
        // Loading options reports the same error.
        SecurityOptions options = plaintextOptions();
        options.tokenFile = name;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, loadSecurity(options));
    }

    void badOptionsAreRefused() {
        SecurityOptions noToken = serverOptions();
        noToken.tokenFile.clear();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadSecurity(noToken));
        SecurityOptions certWithoutKey = serverOptions();
        certWithoutKey.keyFile.clear();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadSecurity(certWithoutKey));
        SecurityOptions both = serverOptions(true);
        both.insecure = true;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loadSecurity(both));
        // A TLS server without a certificate is refused, not silently plaintext.
        SecurityOptions clientOnly = serverOptions();
        clientOnly.certFile.clear();
        clientOnly.keyFile.clear();
        const LoadedSecurity loaded = loadSecurity(clientOnly);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 makeServerCredentials(loaded, "127.0.0.1:0", std::make_shared<TokenGate>("t")));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TokenGate(""));
    }

    void badCertificateFileNamesIt_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("file");
        QTest::newRow("missing certificate") << "cert" << "no-such.pem";
        QTest::newRow("missing key") << "key" << "no-such.key";
        QTest::newRow("missing CA") << "ca" << "no-such-ca.pem";
        QTest::newRow("CA not PEM") << "ca" << "not-pem";
    }

    void badCertificateFileNamesIt() {
        QFETCH(QString, field);
        QFETCH(QString, file);
        SecurityOptions options = serverOptions();
        const std::string name = path(file);
        (field == "cert" ? options.certFile : field == "key" ? options.keyFile : options.caFile) = name;
        try {
            loadSecurity(options);
            QFAIL("expected an error");
        } catch (const std::runtime_error &e) {
            QVERIFY2(std::string(e.what()).find(name) != std::string::npos, e.what());
        }
    }

    void bearerHeaderIsJudged_data() {
        QTest::addColumn<bool>("present");
        QTest::addColumn<QString>("header");
        QTest::addColumn<int>("verdict");
        const int valid = int(TokenVerdict::Valid), missing = int(TokenVerdict::Missing),
                  wrong = int(TokenVerdict::Wrong);
        QTest::newRow("right") << true << "Bearer tok" << valid;
        QTest::newRow("scheme in lower case") << true << "bearer tok" << valid;
        QTest::newRow("absent") << false << "" << missing;
        QTest::newRow("empty") << true << "" << missing;
        QTest::newRow("scheme only") << true << "Bearer " << missing;
        QTest::newRow("wrong") << true << "Bearer tik" << wrong;
        QTest::newRow("prefix of the token") << true << "Bearer to" << wrong;
        QTest::newRow("token plus more") << true << "Bearer tokk" << wrong;
        QTest::newRow("repeated token") << true << "Bearer toktok" << wrong;
        QTest::newRow("other scheme") << true << "Basic tok" << wrong;
        QTest::newRow("no scheme") << true << "tok" << wrong;
    }

    void bearerHeaderIsJudged() {
        QFETCH(bool, present);
        QFETCH(QString, header);
        QFETCH(int, verdict);
        const std::string value = header.toStdString();
        const auto judged =
            judgeAuthorization(present ? std::optional<std::string_view>(value) : std::nullopt, "tok");
        QCOMPARE(int(judged), verdict);
        QVERIFY(!constantTimeEquals("", ""));
    }

    void describesModes_data() {
        QTest::addColumn<bool>("mutualTls");
        QTest::addColumn<bool>("insecure");
        QTest::addColumn<QString>("text");
        QTest::newRow("TLS") << false << false << "TLS + token";
        QTest::newRow("mutual TLS") << true << false << "mutual TLS + token";
        QTest::newRow("plaintext") << false << true << "plaintext (loopback) + token";
    }

    void describesModes() {
        QFETCH(bool, mutualTls);
        QFETCH(bool, insecure);
        QFETCH(QString, text);
        SecurityOptions options;
        options.mutualTls = mutualTls;
        options.insecure = insecure;
        QCOMPARE(QString::fromStdString(describe(options)), text);
    }

    void tlsCalls_data() {
        QTest::addColumn<bool>("serverMutualTls");
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("ca");
        QTest::addColumn<QString>("cert");
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("nameOverride");
        QTest::addColumn<grpc::StatusCode>("expected");
        const auto ok = grpc::StatusCode::OK, unauthenticated = grpc::StatusCode::UNAUTHENTICATED,
                   unavailable = grpc::StatusCode::UNAVAILABLE;
        QTest::newRow("TLS, right token") << false << "127.0.0.1" << "ca" << "" << "right" << "" << ok;
        QTest::newRow("TLS by name, right token") << false << "localhost" << "ca" << "" << "right" << "" << ok;
        QTest::newRow("TLS, no token") << false << "127.0.0.1" << "ca" << "" << "none" << "" << unauthenticated;
        QTest::newRow("TLS, wrong token") << false << "127.0.0.1" << "ca" << "" << "wrong" << "" << unauthenticated;
        QTest::newRow("TLS, client trusts another CA")
            << false << "127.0.0.1" << "other-ca" << "" << "right" << "" << unavailable;
        QTest::newRow("TLS, name override in certificate")
            << false << "127.0.0.1" << "ca" << "" << "right" << "localhost" << ok;
        QTest::newRow("TLS, name override not in certificate")
            << false << "127.0.0.1" << "ca" << "" << "right" << "center.synaptic.test" << unavailable;
        QTest::newRow("mTLS, no client certificate")
            << true << "127.0.0.1" << "ca" << "" << "right" << "" << unavailable;
        QTest::newRow("mTLS, client certificate from another CA")
            << true << "127.0.0.1" << "ca" << "other-client" << "right" << "" << unavailable;
        QTest::newRow("mTLS, right certificate and token")
            << true << "127.0.0.1" << "ca" << "client" << "right" << "" << ok;
        QTest::newRow("mTLS, right certificate, wrong token")
            << true << "127.0.0.1" << "ca" << "client" << "wrong" << "" << unauthenticated;
        QTest::newRow("mTLS, right certificate, no token")
            << true << "127.0.0.1" << "ca" << "client" << "none" << "" << unauthenticated;
    }

    // Each row calls the health service and the counting probe; a rejected
    // call must never reach the probe's handler.
    void tlsCalls() {
        QFETCH(bool, serverMutualTls);
        QFETCH(QString, host);
        QFETCH(QString, ca);
        QFETCH(QString, cert);
        QFETCH(QString, token);
        QFETCH(QString, nameOverride);
        QFETCH(grpc::StatusCode, expected);
        TestServer server;
        const int port = server.start(loadSecurity(serverOptions(serverMutualTls)));
        QVERIFY(port > 0);
        const auto channel = tlsChannel(host + ":" + QString::number(port), ca, cert, token, nameOverride);

        const CallResult health = callMethod(channel, kHealthCheck);
        QVERIFY2(health.code == expected, qPrintable(codeName(health.code) + ": " +
                                                     QString::fromStdString(health.message)));
        const CallResult probe = callMethod(channel, kProbe);
        QVERIFY2(probe.code == expected, qPrintable(codeName(probe.code)));
        if (expected == grpc::StatusCode::OK)
            QCOMPARE(health.reply, kServingReply);
        QCOMPARE(server.handled(), expected == grpc::StatusCode::OK ? 1 : 0);
        const bool rejected = expected == grpc::StatusCode::UNAUTHENTICATED;
        QCOMPARE(server.rejected(), std::uint64_t(rejected ? 2 : 0));
        QVERIFY2(!server.handlerSawToken(), "the gate leaves the token out of what handlers see");
    }

    void rejectionIsLoggedAndCounted_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("peer");
        QTest::newRow("TLS, wrong token") << "tls" << "wrong" << "wrong token" << "a TLS client without a certificate";
        QTest::newRow("TLS, no token") << "tls" << "none" << "no token" << "a TLS client without a certificate";
        QTest::newRow("mTLS, wrong token") << "mtls" << "wrong" << "wrong token" << "CN=client";
        QTest::newRow("plaintext, wrong token") << "plaintext" << "wrong" << "wrong token" << "a loopback client";
        QTest::newRow("plaintext, no token") << "plaintext" << "none" << "no token" << "a loopback client";
    }

    void rejectionIsLoggedAndCounted() {
        QFETCH(QString, mode);
        QFETCH(QString, token);
        QFETCH(QString, reason);
        QFETCH(QString, peer);
        TestServer server;
        const int port = server.start(loadSecurity(mode == "plaintext" ? plaintextOptions()
                                                                       : serverOptions(mode == "mtls")));
        QVERIFY(port > 0);
        const QString target = "127.0.0.1:" + QString::number(port);
        std::shared_ptr<grpc::Channel> channel;
        std::string header;
        if (mode == "plaintext") {
            channel = grpc::CreateChannel(target.toStdString(), grpc::InsecureChannelCredentials());
            if (token == "wrong")
                header = bearerHeaderValue("not-the-cluster-token");
        } else {
            channel = tlsChannel(target, "ca", mode == "mtls" ? "client" : "", token, "");
        }

        for (int i = 0; i < 3; ++i)
            QCOMPARE(callMethod(channel, kHealthCheck, header).code, grpc::StatusCode::UNAUTHENTICATED);
        QCOMPARE(server.rejected(), std::uint64_t(3));
        const QStringList lines = server.logLines();
        QCOMPARE(lines.size(), 3);
        for (const QString &line : lines) {
            QVERIFY2(line.contains(QString::fromStdString(kHealthCheck)), qPrintable(line));
            QVERIFY2(line.endsWith(": " + reason), qPrintable(line));
            QVERIFY2(line.contains(peer), qPrintable(line));
            QVERIFY2(!line.contains('\n'), qPrintable(line));
        }
        QVERIFY(!lines.join(' ').contains(kRightToken));
    }

    void plaintextClientCannotUseTlsPort() {
        TestServer server;
        const int port = server.start(loadSecurity(serverOptions()));
        QVERIFY(port > 0);
        const QString target = "127.0.0.1:" + QString::number(port);
        const auto plain = grpc::CreateChannel(target.toStdString(), grpc::InsecureChannelCredentials());
        QCOMPARE(callMethod(plain, kHealthCheck, bearerHeaderValue(kRightToken)).code,
                 grpc::StatusCode::UNAVAILABLE);
        QCOMPARE(server.handled(), 0);
        // The failed handshake hurt nobody: the port still serves TLS.
        const auto tls = tlsChannel(target, "ca", "", "right", "");
        QCOMPARE(callMethod(tls, kHealthCheck).code, grpc::StatusCode::OK);
        QCOMPARE(callMethod(tls, kProbe).code, grpc::StatusCode::OK);
        QCOMPARE(server.handled(), 1);
    }

    void plaintextOnLoopback_data() {
        QTest::addColumn<QString>("listen");
        QTest::addColumn<QString>("client");
        QTest::addColumn<grpc::StatusCode>("expected");
        const auto ok = grpc::StatusCode::OK, unauthenticated = grpc::StatusCode::UNAUTHENTICATED;
        for (const QString listen : {"127.0.0.1", "unix"}) {
            const auto row = [&listen](const char *name) -> QTestData & {
                return QTest::newRow(qPrintable(QString(name) + " on " + listen)) << listen;
            };
            row("module client, right token") << "module-right" << ok;
            row("module client, wrong token") << "module-wrong" << unauthenticated;
            row("plain client, right token by hand") << "plain-right" << ok;
            row("plain client, wrong token by hand") << "plain-wrong" << unauthenticated;
            row("plain client, no token") << "plain-none" << unauthenticated;
        }
    }

    void plaintextOnLoopback() {
        QFETCH(QString, listen);
        QFETCH(QString, client);
        QFETCH(grpc::StatusCode, expected);
        const std::string socket = "unix:" + path("plaintext.sock");
        TestServer server;
        const int port = server.start(loadSecurity(plaintextOptions()), listen == "unix" ? socket : "127.0.0.1:0");
        QVERIFY(port > 0);
        const std::string target = listen == "unix" ? socket : "127.0.0.1:" + std::to_string(port);

        std::shared_ptr<grpc::Channel> channel;
        std::string header;
        if (client.startsWith("module")) {
            channel = makeChannel(loadSecurity(plaintextOptions(client == "module-wrong" ? "wrong-token" : "token")),
                                  target);
        } else {
            channel = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
            if (client == "plain-right")
                header = bearerHeaderValue(kRightToken);
            else if (client == "plain-wrong")
                header = bearerHeaderValue("not-the-cluster-token");
        }
        const CallResult health = callMethod(channel, kHealthCheck, header);
        QVERIFY2(health.code == expected, qPrintable(codeName(health.code) + ": " +
                                                     QString::fromStdString(health.message)));
        QCOMPARE(callMethod(channel, kProbe, header).code, expected);
        if (expected == grpc::StatusCode::OK)
            QCOMPARE(health.reply, kServingReply);
        QCOMPARE(server.handled(), expected == grpc::StatusCode::OK ? 1 : 0);
        QCOMPARE(server.rejected(), std::uint64_t(expected == grpc::StatusCode::OK ? 0 : 2));
        QVERIFY(!server.handlerSawToken());
    }

    void plaintextRefusedOffLoopback_data() {
        QTest::addColumn<QString>("address");
        QTest::newRow("0.0.0.0") << "0.0.0.0:5000";
        QTest::newRow("10.0.0.1") << "10.0.0.1:5000";
        QTest::newRow("[::]") << "[::]:5000";
        QTest::newRow("hostname") << "center.example.com:5000";
    }

    void plaintextRefusedOffLoopback() {
        QFETCH(QString, address);
        const std::string where = address.toStdString();
        const LoadedSecurity loaded = loadSecurity(plaintextOptions());
        for (const bool server : {true, false}) {
            try {
                if (server)
                    makeServerCredentials(loaded, where, std::make_shared<TokenGate>(loaded.token));
                else
                    makeChannelCredentials(loaded, where);
                QFAIL("expected plaintext to be refused");
            } catch (const std::invalid_argument &e) {
                const QString message = e.what();
                QVERIFY2(message.contains(address), e.what());
                QVERIFY2(message.contains("--insecure"), e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestRpcSecurity)
#include "tst_rpc_security.moc"

// The node's gRPC server on a real socket on 127.0.0.1.
#include "core/rpc/node_server.h"
#include "synaptic_version.h"

#include <QTest>

using namespace synaptic::rpc;

class TestNodeServer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void servesInfo() {
        NodeServer server({"edge-7", "edge", "cpu"});
        const int port = server.start("127.0.0.1:0");
        QVERIFY(port > 0);
        const RemoteNodeInfo info = queryNodeInfo("127.0.0.1:" + std::to_string(port));
        QCOMPARE(info.nodeId, std::string("edge-7"));
        QCOMPARE(info.role, std::string("edge"));
        QCOMPARE(info.device, std::string("cpu"));
        QCOMPARE(info.version, std::string(SYNAPTIC_VERSION));
        QVERIFY(!info.torchVersion.empty());
        server.shutdown();
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, queryNodeInfo("127.0.0.1:" + std::to_string(port), 300));
    }

    void unreachableNodeNamesAddress() {
        // Port 1 on loopback: nothing listens there.
        try {
            queryNodeInfo("127.0.0.1:1", 300);
            QFAIL("expected an error");
        } catch (const std::runtime_error &e) {
            QVERIFY2(QString(e.what()).contains("127.0.0.1:1"), e.what());
        }
    }

    void badListenAddressThrows() {
        NodeServer server({"c", "center", "cpu"});
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, server.start("256.1.1.1:99999"));
    }
};

QTEST_APPLESS_MAIN(TestNodeServer)
#include "tst_node_server.moc"

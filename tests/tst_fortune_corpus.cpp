// The language-ID corpus loader on Debian's real fortune files, and on
// folders the test writes itself: damaged encodings and missing languages
// must be reported by file and package, never silently.
#include "core/data/char_ngrams.h"
#include "core/data/data_error.h"
#include "core/data/fortune_corpus.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <set>

using namespace synaptic::data;

namespace {

void writeFile(const std::filesystem::path &path, const std::string &bytes) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string someFortunes(const std::string &word, int count) {
    std::string out;
    for (int i = 0; i < count; ++i)
        out += word + " number " + std::to_string(i) + " of a test fortune\n%\n";
    return out;
}

} // namespace

class TestFortuneCorpus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void realFilesGiveTwelveLanguages() {
        FortuneOptions options;
        options.maxPerLanguage = 300;
        const auto corpus = loadFortuneCorpus(resolveFortuneDir(""), options);
        QCOMPARE(corpus.classCount(), std::size_t(12));
        std::vector<std::size_t> train(12), test(12);
        for (const auto &s : corpus.train)
            ++train[std::size_t(s.label)];
        for (const auto &s : corpus.test)
            ++test[std::size_t(s.label)];
        for (std::size_t c = 0; c < 12; ++c) {
            QVERIFY2(train[c] > 0 && test[c] > 0, corpus.languages[c].code.c_str());
            QVERIFY(train[c] + test[c] <= 300);
            QVERIFY(corpus.filesRead[c] > 0);
        }
        // About a fifth goes to the test split.
        const double share = double(corpus.test.size()) / double(corpus.train.size() + corpus.test.size());
        QVERIFY2(share > 0.15 && share < 0.25, std::to_string(share).c_str());
        // No text is on both sides.
        std::set<std::string> trainTexts;
        for (const auto &s : corpus.train)
            trainTexts.insert(s.text);
        for (const auto &s : corpus.test)
            QVERIFY(!trainTexts.count(s.text));
    }

    void theSplitIsTheSameInEveryRun() {
        FortuneOptions options;
        options.maxPerLanguage = 100;
        options.languages = {"ga", "eo"};
        const auto a = loadFortuneCorpus(resolveFortuneDir(""), options);
        const auto b = loadFortuneCorpus(resolveFortuneDir(""), options);
        QCOMPARE(a.train.size(), b.train.size());
        QCOMPARE(a.test.size(), b.test.size());
        for (std::size_t i = 0; i < a.test.size(); ++i)
            QCOMPARE(a.test[i].text, b.test[i].text);
        QCOMPARE(a.languages.front().code, std::string("ga"));
    }

    void aFortuneInTwoFilesLandsOnOneSide() {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        const std::string shared = someFortunes("gemeinsam", 40);
        writeFile(root / "de" / "one", shared + someFortunes("eins", 20));
        writeFile(root / "de" / "two", shared + someFortunes("zwei", 20));
        FortuneOptions options;
        options.languages = {"de"};
        const auto corpus = loadFortuneCorpus(root.string(), options);
        QCOMPARE(corpus.train.size() + corpus.test.size(), std::size_t(80)); // 40 shared, kept once
        QCOMPARE(corpus.filesRead.front(), std::size_t(2));
    }

    void aFileThatIsNotUtf8IsSkippedByName() {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        writeFile(root / "ga" / "good", someFortunes("maith", 10));
        writeFile(root / "ga" / "latin1", "caf\xe9 au lait\n%\n");
        writeFile(root / "ga" / "good.dat", std::string("\x00\x01\xff", 3)); // index files are never read
        FortuneOptions options;
        options.languages = {"ga"};
        const auto corpus = loadFortuneCorpus(root.string(), options);
        QCOMPARE(corpus.skipped.size(), std::size_t(1));
        QVERIFY(corpus.skipped.front().path.ends_with("ga/latin1"));
        QCOMPARE(corpus.skipped.front().reason, std::string("not valid UTF-8 at byte 3"));
        QCOMPARE(corpus.train.size() + corpus.test.size(), std::size_t(10));
    }

    void aMissingLanguageNamesItsPackage() {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        writeFile(root / "de" / "one", someFortunes("eins", 5));
        FortuneOptions options;
        options.languages = {"de", "eo"};
        try {
            loadFortuneCorpus(root.string(), options);
            QFAIL("a language without files must be an error");
        } catch (const DataError &e) {
            QVERIFY2(std::string(e.what()).find("fortunes-eo") != std::string::npos, e.what());
            QVERIFY2(e.source().ends_with("eo"), e.what());
        }
    }

    void aLanguageWhoseOnlyFileIsDamagedIsAnError() {
        QTemporaryDir dir;
        const std::filesystem::path root = dir.path().toStdString();
        writeFile(root / "eo" / "proverbaro", "\xc3\x28 broken\n%\n");
        FortuneOptions options;
        options.languages = {"eo"};
        try {
            loadFortuneCorpus(root.string(), options);
            QFAIL("a language whose only file is damaged must be an error");
        } catch (const DataError &e) {
            // The package is installed: the message names the damaged file, not the package.
            const std::string what = e.what();
            QVERIFY2(what.find("proverbaro: not valid UTF-8 at byte 0") != std::string::npos, e.what());
        }
    }

    void aMissingFolderAndBadOptionsAreErrors() {
        QVERIFY_THROWS_EXCEPTION(DataError, loadFortuneCorpus("/nonexistent/fortunes"));
        FortuneOptions bad;
        bad.testFraction = 1.5;
        QVERIFY_THROWS_EXCEPTION(DataError, loadFortuneCorpus(resolveFortuneDir(""), bad));
        FortuneOptions unknown;
        unknown.languages = {"xx"};
        QVERIFY_THROWS_EXCEPTION(DataError, loadFortuneCorpus(resolveFortuneDir(""), unknown));
    }

    void utf8Validation_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("bad"); // -1: valid
        QTest::newRow("ascii") << QByteArray("plain") << -1;
        QTest::newRow("two, three, four bytes") << QByteArray("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") << -1;
        QTest::newRow("lone continuation") << QByteArray("a\x80") << 1;
        QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << 0;
        QTest::newRow("overlong three") << QByteArray("\xe0\x80\xaf") << 0;
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << 0;
        QTest::newRow("past U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << 0;
        QTest::newRow("truncated") << QByteArray("ab\xe2\x82") << 2;
        QTest::newRow("bad continuation") << QByteArray("a\xe2\x28\xa1") << 1;
    }
    void utf8Validation() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, bad);
        std::size_t at = 12345;
        const bool valid = isValidUtf8(bytes.toStdString(), &at);
        QCOMPARE(valid, bad < 0);
        if (bad >= 0)
            QCOMPARE(at, std::size_t(bad));
    }

    void recordsAreCleaned() {
        const auto records = splitFortunes("first\r\nline\r\n%\n\n%\nb\bbold _\bx\ttab\n%\nlast");
        QCOMPARE(records.size(), std::size_t(3));
        QCOMPARE(records[0], std::string("first line"));
        QCOMPARE(records[1], std::string("bold x tab"));
        QCOMPARE(records[2], std::string("last"));
    }

    void ngramsAreHashedDeterministically() {
        NgramOptions options;
        options.buckets = 1 << 10;
        const auto a = hashedNgrams("Hallo Welt", options);
        QCOMPARE(a, hashedNgrams("hallo welt", options)); // ASCII case folds
        QVERIFY(a != hashedNgrams("hello welt", options));
        for (auto g : a)
            QVERIFY(g >= 0 && g < options.buckets);
        // n-grams of " hallo welt " (12 code points): 9 unigrams (spaces
        // alone are not counted), 11 bigrams, 10 trigrams, 9 four-grams.
        QCOMPARE(a.size(), std::size_t(39));
        // A multi-byte code point counts once.
        options.minN = options.maxN = 1;
        QCOMPARE(hashedNgrams("\xc5\xbe\xc3\xa9", options).size(), std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestFortuneCorpus)
#include "tst_fortune_corpus.moc"

import Foundation
import NIOPosix
import Testing
import WeatherCore

@testable import TestSupport
@testable import WeatherDaemon

/// `FileCityStore`: the `cities.add`/`cities.remove` changes in `<state.directory>/cities.json`.
@Suite struct FileCityStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func store(in path: String? = nil) -> FileCityStore {
        FileCityStore(directory: path ?? directory.path, logger: silentLogger)
    }

    private func files(in path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    @Test func savedChangesAreLoadedBack() async throws {
        let changes = CityChanges(added: ["Zocca", "São Paulo", "Zürich"], removed: ["London"])
        try await store().save(changes)

        #expect(try store().load() == changes)
    }

    @Test func theFileIsCitiesJSONInTheStateDirectory() {
        #expect(store().path == directory.path + "/cities.json")
    }

    @Test func aLaterSaveReplacesTheEarlierOne() async throws {
        try await store().save(CityChanges(added: ["Zocca"], removed: ["London"]))
        try await store().save(CityChanges(added: ["Oslo"]))

        #expect(try store().load() == CityChanges(added: ["Oslo"]))
    }

    @Test func noFileMeansNoChanges() throws {
        #expect(try store().load() == CityChanges())
        #expect(try files(in: directory.path).isEmpty, "loading creates nothing")
    }

    @Test func aMissingStateDirectoryMeansNoChanges() throws {
        #expect(try store(in: directory.file("not/there")).load() == CityChanges())
    }

    @Test func theSavedFileIsOneCompleteJSONTextAndNothingIsLeftBeside() async throws {
        let changes = CityChanges(added: ["Zocca"], removed: ["London"])
        try await store().save(changes)

        #expect(try files(in: directory.path) == ["cities.json"])
        let text = try String(contentsOfFile: store().path, encoding: .utf8)
        #expect(text.hasSuffix("}\n"))
        #expect(try JSONValue.parse(Array(text.utf8)) == changes.json)
    }

    @Test func saveCreatesTheStateDirectoryWithItsParents() async throws {
        let nested = directory.file("var/lib/weatherd")
        try await store(in: nested).save(CityChanges(added: ["Zocca"]))

        #expect(try files(in: nested) == ["cities.json"])
        #expect(try store(in: nested).load() == CityChanges(added: ["Zocca"]))
    }

    @Test(arguments: ["", "not json", "{\"added\": [\"Zocca\"]", "[]", "{\"added\": [\"Zocca\"]}", "{\"added\": 1, \"removed\": []}"])
    func aFileThatIsNotACityListIsMovedAsideAndLoadingStartsEmpty(content: String) throws {
        try content.write(toFile: store().path, atomically: false, encoding: .utf8)

        #expect(try store().load() == CityChanges())

        let left = try files(in: directory.path)
        try #require(left.count == 1, "\(left)")
        let aside = left[0]
        #expect(aside.hasPrefix("cities.json.corrupt-"), "\(aside)")
        let time = try #require(Int(aside.dropFirst("cities.json.corrupt-".count)), "a Unix time after .corrupt-: \(aside)")
        #expect(abs(time - Int(Date().timeIntervalSince1970)) < 60)
        #expect(try String(contentsOfFile: directory.file(aside), encoding: .utf8) == content, "the operator keeps the file as it was")
    }

    @Test func twoCorruptFilesInTheSameSecondAreBothKept() throws {
        let second = Date(timeIntervalSince1970: 1_795_000_000)
        let store = FileCityStore(directory: directory.path, logger: silentLogger, now: { second })
        try "first".write(toFile: store.path, atomically: false, encoding: .utf8)
        _ = try store.load()
        try "second".write(toFile: store.path, atomically: false, encoding: .utf8)
        _ = try store.load()

        #expect(try files(in: directory.path) == ["cities.json.corrupt-1795000000", "cities.json.corrupt-1795000000.2"])
        #expect(try String(contentsOfFile: directory.file("cities.json.corrupt-1795000000"), encoding: .utf8) == "first")
        #expect(try String(contentsOfFile: directory.file("cities.json.corrupt-1795000000.2"), encoding: .utf8) == "second")
    }

    @Test func aTemporaryFileLeftByAnInterruptedSaveIsRemovedAtLoadAndTheListKept() async throws {
        try await store().save(CityChanges(added: ["Oslo"]))
        try "{\"added\": [\"Ber".write(toFile: store().temporaryPath, atomically: false, encoding: .utf8)

        #expect(try store().load() == CityChanges(added: ["Oslo"]))
        #expect(try files(in: directory.path) == ["cities.json"])
    }

    @Test func afterACorruptFileASaveStoresAFreshList() async throws {
        try "garbage".write(toFile: store().path, atomically: false, encoding: .utf8)
        _ = try store().load()

        try await store().save(CityChanges(added: ["Oslo"]))

        #expect(try store().load() == CityChanges(added: ["Oslo"]))
    }

    @Test func aCityListThatCannotBeReadIsAnErrorAndIsLeftInPlace() throws {
        // A directory where the file should be: it exists, yet has no contents to read.
        try FileManager.default.createDirectory(atPath: store().path, withIntermediateDirectories: false)

        #expect(throws: StoreError.self) { try store().load() }
        #expect(try files(in: directory.path) == ["cities.json"])
    }

    @Test func aSaveMakesTheStateDirectoryAndTheOnesAboveIt() async throws {
        let nested = directory.path + "/state/weatherd"
        try await store(in: nested).save(CityChanges(added: ["Oslo"]))

        #expect(try store(in: nested).load() == CityChanges(added: ["Oslo"]))
        try await store(in: nested + "/").save(CityChanges(added: ["Rome"]))  // there already, with a slash
        #expect(try store(in: nested).load() == CityChanges(added: ["Rome"]))
    }

    @Test func aFileInTheWayOfTheStateDirectoryIsAnError() async throws {
        #expect(FileManager.default.createFile(atPath: directory.path + "/state", contents: Data()))

        let error = await #expect(throws: StoreError.self) {
            try await store(in: directory.path + "/state/weatherd").save(CityChanges(added: ["Oslo"]))
        }

        #expect(error?.message == "cannot create the directory \(directory.path)/state: Not a directory")
    }

    @Test func aCityListThatCannotBeReadSaysWhy() throws {
        try FileManager.default.createDirectory(atPath: store().path, withIntermediateDirectories: false)

        let error = #expect(throws: StoreError.self) { try store().load() }

        #expect(error?.message == "cannot read \(store().path): is a directory")
    }

    @Test func aFailedSaveLeavesTheStoredListAsItWas() async throws {
        try await store().save(CityChanges(added: ["Zocca"]))
        // The temporary file cannot be created: a directory is in its place.
        try FileManager.default.createDirectory(atPath: store().path + ".tmp", withIntermediateDirectories: false)

        let error = await #expect(throws: StoreError.self) { try await store().save(CityChanges(added: ["Oslo"])) }

        #expect(error?.message.contains("cities.json.tmp") == true, "\(String(describing: error))")
        #expect(try store().load() == CityChanges(added: ["Zocca"]))
    }
}

/// `FilePlaceStore`: the places of found names in `<state.directory>/places.json`.
@Suite struct FilePlaceStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private var store: FilePlaceStore {
        FilePlaceStore(directory: directory.path, logger: silentLogger, now: { Date(timeIntervalSince1970: 1_700_000_000) })
    }

    private static func entry(_ name: String, expires: TimeInterval = 1_800_000_000) -> PlaceCacheEntry {
        PlaceCacheEntry(
            name: name,
            places: [
                Place(
                    name: "São Paulo", state: "São Paulo", country: "BR", coordinate: Coordinate(lat: -23.5475, lon: -46.6361),
                    provider: "open-meteo", geonamesID: 3_448_439)
            ],
            expires: Date(timeIntervalSince1970: expires))
    }

    @Test func keptEntriesAreWrittenAndLoadedBack() async throws {
        let store = self.store
        store.keep(Self.entry("são paulo"))
        await store.flush()
        #expect(store.path == directory.path + "/places.json")
        #expect(self.store.load() == [Self.entry("são paulo")])
    }

    @Test func aBurstOfNamesIsOneWriteOfThemAllAndExpiredOnesAreLeftOut() async throws {
        let writes = Observed(0)
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        defer { pool.shutdownGracefully { _ in } }
        // The pool's one thread is held while the names come: they all wait for one write.
        let hold = DispatchSemaphore(value: 0)
        pool.submit { _ in hold.wait() }
        let store = FilePlaceStore(
            directory: directory.path, logger: silentLogger, now: { Date(timeIntervalSince1970: 1_700_000_000) }, pool: pool,
            sync: { fd in
                writes.update { $0 += 1 }
                return fsync(fd)
            })
        _ = store.load()
        for n in 0..<100 { store.keep(Self.entry("name \(n)")) }
        store.keep(Self.entry("expired", expires: 1_600_000_000))
        hold.signal()
        await store.flush()
        #expect(writes.value == 2, "one write (a file and its directory flushed), not one for each name")
        let loaded = self.store.load()
        #expect(loaded.count == 100 && loaded.map(\.name) == loaded.map(\.name).sorted())
    }

    @Test func flushingWithNothingKeptWritesNothing() async throws {
        await store.flush()
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    @Test func noFileIsNoEntries() {
        #expect(store.load().isEmpty)
    }

    @Test func aCorruptFileIsSetAsideNeverFatal() throws {
        for (n, text) in ["{not json", #"{"version":1,"names":[{"name":"x"}]}"#].enumerated() {
            try text.write(toFile: store.path, atomically: true, encoding: .utf8)
            #expect(store.load().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: store.path))
            let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
                $0.hasPrefix("places.json.corrupt-1700000000")
            }
            #expect(aside.count == n + 1, "\(aside)")
        }
    }
}

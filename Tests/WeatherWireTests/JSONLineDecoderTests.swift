import NIOCore
import NIOEmbedded
import Testing
import WeatherWire

/// `JSONLineDecoder`: the newline framing of the socket protocol, on an `EmbeddedChannel` (bytes
/// in as reads, frames out), as `ByteToMessageHandler` runs it on a real connection.
@Suite struct JSONLineDecoderTests {
    /// What came out of the channel: each line as text, `.oversized` as `"<oversized>"`.
    static let oversized = "<oversized>"

    private final class Framing {
        let channel: EmbeddedChannel

        init(maxLength: Int) {
            channel = EmbeddedChannel(handler: ByteToMessageHandler(JSONLineDecoder(maxLength: maxLength)))
        }

        deinit {
            _ = try? channel.finish()
        }

        /// Delivers `text` as one read and returns the frames it completed.
        func read(_ text: String) throws -> [String] {
            try channel.writeInbound(ByteBuffer(string: text))
            return try frames()
        }

        /// The peer closes its sending side (end of file) and returns the frames that completed.
        func endOfInput() throws -> [String] {
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            return try frames()
        }

        private func frames() throws -> [String] {
            var frames: [String] = []
            while let frame = try channel.readInbound(as: JSONLineFrame.self) {
                switch frame {
                case .line(let buffer): frames.append(String(buffer: buffer))
                case .oversized: frames.append(JSONLineDecoderTests.oversized)
                }
            }
            return frames
        }
    }

    // MARK: Lines

    @Test func eachNewlineEndsOneFrameInOrder() throws {
        let framing = Framing(maxLength: 64)

        #expect(try framing.read("{\"id\":1}\n{\"id\":2}\n{\"id\":3}\n") == ["{\"id\":1}", "{\"id\":2}", "{\"id\":3}"])
    }

    @Test func aLineSplitAcrossReadsIsOneFrameOnceItsNewlineArrives() throws {
        let framing = Framing(maxLength: 64)

        #expect(try framing.read("{\"id\"") == [])
        #expect(try framing.read(":1") == [])
        #expect(try framing.read("}\n{\"id\":") == ["{\"id\":1}"])
        #expect(try framing.read("2}\n") == ["{\"id\":2}"])
    }

    @Test func aLineEndingInCRLFLosesItsCR() throws {
        let framing = Framing(maxLength: 64)

        #expect(try framing.read("{}\r\n") == ["{}"])
    }

    @Test func aCRSplitFromItsNewlineIsStillDropped() throws {
        let framing = Framing(maxLength: 64)

        #expect(try framing.read("{}\r") == [])
        #expect(try framing.read("\n") == ["{}"])
    }

    @Test func aCRInsideALineIsKept() throws {
        let framing = Framing(maxLength: 64)

        #expect(try framing.read("a\rb\n") == ["a\rb"])
    }

    @Test func emptyLinesAreEmptyFrames() throws {
        let framing = Framing(maxLength: 64)

        #expect(try framing.read("\n\r\n{}\n") == ["", "", "{}"])
    }

    @Test func aLastLineWithoutNewlineCountsAtEndOfInput() throws {
        let framing = Framing(maxLength: 64)

        #expect(try framing.read("{\"id\":1}\n{\"id\":2}") == ["{\"id\":1}"])
        #expect(try framing.endOfInput() == ["{\"id\":2}"])
    }

    @Test func nothingLeftAtEndOfInputIsNoFrame() throws {
        let framing = Framing(maxLength: 64)

        #expect(try framing.read("{}\n") == ["{}"])
        #expect(try framing.endOfInput() == [])
    }

    // MARK: The length limit

    @Test func aLineOfExactlyTheLimitIsAFrame() throws {
        let framing = Framing(maxLength: 8)

        #expect(try framing.read("12345678\n") == ["12345678"])
    }

    @Test func theCRBeforeTheNewlineDoesNotCountTowardsTheLimit() throws {
        let framing = Framing(maxLength: 8)

        #expect(try framing.read("12345678\r\n") == ["12345678"])
    }

    @Test func aLineOneByteOverTheLimitIsOversized() throws {
        let framing = Framing(maxLength: 8)

        #expect(try framing.read("123456789\n") == [Self.oversized])
    }

    @Test func anOversizedLineIsReportedBeforeItsNewlineArrives() throws {
        let framing = Framing(maxLength: 8)

        // Nine bytes may still be eight and a CR; ten cannot.
        #expect(try framing.read("123456789") == [])
        #expect(try framing.read("0") == [Self.oversized])
    }

    @Test func afterAnOversizedLineEverythingIsDroppedAndItIsReportedOnce() throws {
        let framing = Framing(maxLength: 8)

        #expect(try framing.read("1234567890") == [Self.oversized])
        #expect(try framing.read("more of it\n") == [])
        #expect(try framing.read("{}\n{}\n") == [])
        #expect(try framing.endOfInput() == [])
    }

    @Test func linesBeforeAnOversizedOneInTheSameReadAreFrames() throws {
        let framing = Framing(maxLength: 8)

        #expect(try framing.read("{}\n123456789\n{}\n") == ["{}", Self.oversized])
    }

    @Test func theProtocolsLimitOf64KiBIsExact() throws {
        let limit = 64 * 1024
        let framing = Framing(maxLength: limit)
        let longest = String(repeating: "a", count: limit)

        #expect(try framing.read(longest + "\n") == [longest])
        #expect(try framing.read(longest + "a\n") == [Self.oversized])
    }

    @Test func aLastLineOverTheLimitAtEndOfInputIsOversized() throws {
        let framing = Framing(maxLength: 8)

        #expect(try framing.read("123456789") == [])  // it waits: the ninth byte could be a CR
        #expect(try framing.endOfInput() == [Self.oversized])
    }

    @Test func aLastLineAtEndOfInputLosesItsCR() throws {
        let framing = Framing(maxLength: 8)

        #expect(try framing.read("12345678\r") == [])
        #expect(try framing.endOfInput() == ["12345678"])
    }
}

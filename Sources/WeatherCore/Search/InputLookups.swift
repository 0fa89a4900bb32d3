/// The lookups of one input of the stream, run outside the engine's isolation: one, a list at most
/// `concurrency` at once, or a region's grid in one request. The engine says after each answer
/// whether the lookups not sent yet are still wanted (not when the input was superseded).
enum InputLookups {
    /// One lookup's answer; nil when the task was cancelled (its requester went away).
    typealias Answer = Result<WeatherObservation, WeatherError>?

    /// Looks `query` up, in the caller's task.
    static func lookUp(_ query: LookupQuery, with lookups: LookupService) async -> Answer {
        guard !Task.isCancelled else { return nil }
        do {
            return .success(try await lookups.lookup(query))
        } catch let error as WeatherError {
            return .failure(error)
        } catch {
            return nil
        }
    }

    /// What the engine is told as lookups settle: how many, and their answers (none for lookups
    /// dropped unsent); it returns whether the lookups not sent yet are still wanted.
    typealias Settled = @Sendable (_ count: Int, _ answers: [Answer]) async -> Bool

    /// Looks `queries` up, at most `concurrency` at once: their answers in the order of `queries`.
    /// Each answer is `settled`, and so are the queued lookups dropped unsent once they are no longer
    /// wanted or the task was cancelled.
    static func run(
        _ queries: [LookupQuery], concurrency: Int, with lookups: LookupService, wanted: Bool, settled: Settled
    ) async -> [Answer] {
        var answers = [Answer](repeating: nil, count: queries.count)
        var wanted = wanted
        await withTaskGroup(of: (Int, Answer).self) { group in
            var queue = Array(queries.indices)[...]
            var inFlight = 0
            while true {
                while inFlight < max(1, concurrency), let index = queue.popFirst() {
                    guard wanted, !Task.isCancelled else {
                        // Superseded: the queued lookups are never sent.
                        let dropped = queue.count + 1
                        queue.removeAll()
                        _ = await settled(dropped, [])
                        break
                    }
                    inFlight += 1
                    let query = queries[index]
                    group.addTask { (index, await lookUp(query, with: lookups)) }
                }
                guard let (index, answer) = await group.next() else { break }
                inFlight -= 1
                answers[index] = answer
                wanted = await settled(1, [answer])
            }
        }
        return answers
    }

    /// Looks a region's grid up: first together, in one request, where the first provider can
    /// (``LookupService/lookUpTogether(_:)``), then each point not answered so, at most `concurrency`
    /// at once. Once `superseded` is woken, the request in flight is cancelled; once `settled` says
    /// they are no longer wanted, the queued lookups are never sent.
    static func grid(
        _ coordinates: [Coordinate], concurrency: Int, with lookups: LookupService, until superseded: Wakeup, wanted: Bool,
        settled: Settled
    ) async -> [Answer] {
        var answers = [Answer](repeating: nil, count: coordinates.count)
        if wanted, !Task.isCancelled, let together = await together(coordinates, with: lookups, until: superseded) {
            answers = together
        }
        let rest = answers.indices.filter { answers[$0] == nil }
        let stillWanted = await settled(answers.count - rest.count, answers)
        guard !rest.isEmpty else { return answers }
        let others = await run(
            rest.map { .coordinate(coordinates[$0]) }, concurrency: concurrency, with: lookups, wanted: stillWanted, settled: settled)
        for (index, answer) in zip(rest, others) { answers[index] = answer }
        return answers
    }

    /// Looks a grid's `coordinates` up in one request where the first provider can: nil when
    /// `superseded` is woken first (the request is then cancelled).
    private static func together(_ coordinates: [Coordinate], with lookups: LookupService, until superseded: Wakeup) async -> [Answer]? {
        await withTaskGroup(of: [Answer]?.self) { group in
            group.addTask { await lookups.lookUpTogether(coordinates) }
            group.addTask {
                _ = await superseded.wait()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Whether `answer` is a 429 (rate_limited): it shows in `state.budget` at once.
    static func isRateLimited(_ answer: Answer) -> Bool {
        if case .failure(let error)? = answer { error.code == .rateLimited } else { false }
    }
}

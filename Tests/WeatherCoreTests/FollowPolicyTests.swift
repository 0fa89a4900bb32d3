import Foundation
import Testing

@testable import TestSupport
@testable import WeatherCore

@Suite("FollowPolicy: which fixes start a search in follow mode")
struct FollowPolicyTests {
    /// A fix at `lat`, `lon` (0.01° of latitude is about 1112 m).
    private func fix(_ lat: Double, _ lon: Double = 10.99) -> LocationFix {
        LocationFix(GPSFix(coordinate: Coordinate(lat: lat, lon: lon), horizontalError: 10, mode: 3, at: Date(timeIntervalSince1970: 0)))
    }

    @Test("the distances the tests rely on: 0.01° of latitude ≈ 1112 m, 0.005° ≈ 556 m")
    func distances() {
        #expect(abs(fix(44.34).coordinate.distance(to: fix(44.35).coordinate) - 1112) < 1)
        #expect(abs(fix(44.34).coordinate.distance(to: fix(44.345).coordinate) - 556) < 1)
    }

    @Test("the first fix starts a search and becomes the last searched point")
    func firstFixSearches() {
        var policy = FollowPolicy(distance: 1000)
        let first = policy.shouldSearch(fix(44.34))
        #expect(first)
        #expect(policy.lastSearched == Coordinate(lat: 44.34, lon: 10.99))
    }

    @Test("a fix less than follow_distance from the last searched one does not search")
    func nearFixDoesNotSearch() {
        var policy = FollowPolicy(distance: 1000)
        _ = policy.shouldSearch(fix(44.34))
        let near = policy.shouldSearch(fix(44.345))
        #expect(!near)  // ≈ 556 m
        #expect(policy.lastSearched == Coordinate(lat: 44.34, lon: 10.99), "a fix not searched does not move the reference")
    }

    @Test("a fix at least follow_distance from the last searched one searches")
    func farFixSearches() {
        var policy = FollowPolicy(distance: 1000)
        _ = policy.shouldSearch(fix(44.34))
        let far = policy.shouldSearch(fix(44.35))
        #expect(far)  // ≈ 1112 m
        #expect(policy.lastSearched == Coordinate(lat: 44.35, lon: 10.99))
    }

    @Test("a fix exactly follow_distance away searches (>=)")
    func exactlyAtDistanceSearches() {
        let a = fix(44.34)
        let b = fix(44.3466, 11.0)
        var policy = FollowPolicy(distance: a.coordinate.distance(to: b.coordinate))
        _ = policy.shouldSearch(a)
        let atDistance = policy.shouldSearch(b)
        #expect(atDistance)
    }

    @Test("distance is measured from the last searched fix, not the last fix seen: a slow drift searches once it adds up")
    func driftAddsUp() {
        var policy = FollowPolicy(distance: 1000)
        _ = policy.shouldSearch(fix(44.340))
        let afterOneStep = policy.shouldSearch(fix(44.346))
        #expect(!afterOneStep)  // ≈ 667 m from the searched one
        let afterTwoSteps = policy.shouldSearch(fix(44.352))
        #expect(afterTwoSteps)  // ≈ 667 m from the last seen, ≈ 1334 m from the searched one
    }

    @Test("searched(_:) moves the reference: fixes near it do not search, fixes far from it do")
    func searchedMovesReference() {
        var policy = FollowPolicy(distance: 1000)
        _ = policy.shouldSearch(fix(44.34))
        policy.searched(Coordinate(lat: 44.40, lon: 10.99))
        #expect(policy.lastSearched == Coordinate(lat: 44.40, lon: 10.99))
        let nearLocated = policy.shouldSearch(fix(44.405))
        #expect(!nearLocated, "≈ 556 m from the point searched by locate")
        let backAtFirst = policy.shouldSearch(fix(44.34))
        #expect(backAtFirst, "back at the first fix: ≈ 6.7 km from the point searched by locate")
    }

    @Test("searched(_:) before any fix makes that point the reference: the first fix near it does not search")
    func searchedBeforeFirstFix() {
        var policy = FollowPolicy(distance: 1000)
        policy.searched(Coordinate(lat: 44.34, lon: 10.99))
        let nearReference = policy.shouldSearch(fix(44.341))
        #expect(!nearReference)
    }

    @Test("follow_distance 0 searches every fix, even one at the same place")
    func zeroDistanceSearchesEveryFix() {
        var policy = FollowPolicy(distance: 0)
        let first = policy.shouldSearch(fix(44.34))
        #expect(first)
        let samePlace = policy.shouldSearch(fix(44.34))
        #expect(samePlace)
        let tinyMove = policy.shouldSearch(fix(44.3400001))
        #expect(tinyMove)
    }

    @Test("take: the report's settings first, then its event; off, a fused fix is not searched and does not move the reference")
    func take() {
        var policy = FollowPolicy(distance: 0, enabled: false)
        #expect(policy.take(FollowReport(follow: false, distance: 1000, .fused(fix(44.34)))) == nil)
        #expect(policy.lastSearched == nil)
        #expect(policy.take(FollowReport(follow: true, distance: 1000, .fused(fix(44.34))))?.coordinate.lat == 44.34)
        #expect(policy.take(FollowReport(follow: true, distance: 500, .fused(fix(44.345)))) != nil, "≈ 556 m, the new distance")
        #expect(policy.take(FollowReport(follow: true, distance: 500, .located(Coordinate(lat: 44.40, lon: 10.99)))) == nil)
        #expect(policy.lastSearched == Coordinate(lat: 44.40, lon: 10.99))
        #expect(policy.take(FollowReport(follow: true, distance: 500, .resumed)) == nil)
        #expect(policy.lastSearched == nil)
    }
}

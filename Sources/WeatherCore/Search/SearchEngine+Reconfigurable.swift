extension SearchEngine: Reconfigurable {
    /// New configured cities (`cities`): the stored changes stay on top of them.
    public func apply(_ change: ConfigChange) async {
        if change.changed("cities") { await reconfigure(cities: change.new.cities) }
        await refreshBudget()  // the providers, their order or their budgets may have changed
    }
}

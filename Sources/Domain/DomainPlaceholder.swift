enum DomainPlaceholder {}

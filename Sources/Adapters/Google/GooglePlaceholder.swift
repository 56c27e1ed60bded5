enum GooglePlaceholder {}

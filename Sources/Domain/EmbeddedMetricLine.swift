#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One CloudWatch Embedded Metric Format document on one line: what the refresh run and the
/// security-events receiver print for CloudWatch to turn into metrics, and what
/// `paypulse deploy-facts` reads back for the template's alarms.
package struct EmbeddedMetricLine: Sendable {
    /// One metric with its unit and value.
    package struct Metric: Sendable {
        /// The metric's name.
        package var name: String
        /// CloudWatch's unit (`Count`, `Milliseconds`).
        package var unit: String
        /// The value.
        package var value: Int64

        /// Creates a metric.
        package init(_ name: String, unit: String = "Count", _ value: Int64) {
            self.name = name
            self.unit = unit
            self.value = value
        }
    }

    /// The document for `metrics` in `namespace`, by the `dimensions` given in order.
    /// Dimension values keep only letters, digits, `-` and `_`, so no value can break the
    /// line's JSON; names are the caller's constants.
    package static func line(namespace: String, dimensions: [(name: String, value: String)], metrics: [Metric], timestamp: Date) -> String {
        let millis = Int64((timestamp.timeIntervalSince1970 * 1000).rounded(.down))
        let dimensionNames = dimensions.map { #""\#($0.name)""# }.joined(separator: ",")
        let definitions = metrics.map { #"{"Name":"\#($0.name)","Unit":"\#($0.unit)"}"# }.joined(separator: ",")
        let dimensionValues = dimensions.map {
            #""\#($0.name)":"\#($0.value.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })""#
        }
        let values = dimensionValues + metrics.map { #""\#($0.name)":\#($0.value)"# }
        return #"{"_aws":{"Timestamp":\#(millis),"CloudWatchMetrics":[{"Namespace":"\#(namespace)","Dimensions":[[\#(dimensionNames)]],"Metrics":[\#(definitions)]}]},\#(values.joined(separator: ","))}"#
    }
}

// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The part of EAS's Attestation struct the indexer reads (same field order as EAS's `Attestation`).
struct Attestation {
    bytes32 uid;
    bytes32 schema;
    uint64 time;
    uint64 expirationTime;
    uint64 revocationTime;
    bytes32 refUID;
    address recipient;
    address attester;
    bool revocable;
    bytes data;
}

/// @notice EAS's read of one attestation.
interface IEAS {
    function getAttestation(bytes32 uid) external view returns (Attestation memory);
}

/// @title AttestationIndexer: a devnet look-alike of Coinbase's attestation indexer on Base, written by us.
/// @notice Same read as Coinbase's (`getAttestationUid(recipient, schemaUid)`, the latest indexed attestation's UID,
///         zero when none). Anyone may index an existing EAS attestation, whoever attested it: readers must check the
///         attestation's attester, schema, recipient, revocation and expiry themselves, as the gateway does.
contract AttestationIndexer {
    IEAS public immutable eas;
    mapping(address => mapping(bytes32 => bytes32)) private latest;

    event AttestationIndexed(address indexed recipient, bytes32 indexed schemaUid, bytes32 indexed attestationUid);

    constructor(IEAS eas_) {
        eas = eas_;
    }

    /// @notice Records `attestationUid` as the latest of its recipient and schema; reverts when EAS does not know it.
    function index(bytes32 attestationUid) external {
        Attestation memory attestation = eas.getAttestation(attestationUid);
        require(attestation.uid == attestationUid && attestationUid != bytes32(0), "unknown attestation");
        latest[attestation.recipient][attestation.schema] = attestationUid;
        emit AttestationIndexed(attestation.recipient, attestation.schema, attestationUid);
    }

    /// @notice The latest indexed attestation of `recipient` in `schemaUid`; zero when none.
    function getAttestationUid(address recipient, bytes32 schemaUid) external view returns (bytes32) {
        return latest[recipient][schemaUid];
    }
}

// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ENSRegistry: the EIP-137 registry of the devnet's name service.
/// @notice Each node (namehash) has an owner, a resolver and a TTL; the owner of a node creates its subnodes. The
///         deployer owns the root.
contract ENSRegistry {
    struct Record {
        address owner;
        address resolver;
        uint64 ttl;
    }

    mapping(bytes32 => Record) private records;

    event NewOwner(bytes32 indexed node, bytes32 indexed label, address owner);
    event Transfer(bytes32 indexed node, address owner);
    event NewResolver(bytes32 indexed node, address resolver);
    event NewTTL(bytes32 indexed node, uint64 ttl);

    error Unauthorised(bytes32 node, address sender);

    modifier authorised(bytes32 node) {
        if (records[node].owner != msg.sender) revert Unauthorised(node, msg.sender);
        _;
    }

    constructor() {
        records[0x0].owner = msg.sender;
        emit Transfer(0x0, msg.sender);
    }

    /// @notice Transfers `node` to `owner_`.
    function setOwner(bytes32 node, address owner_) external authorised(node) {
        records[node].owner = owner_;
        emit Transfer(node, owner_);
    }

    /// @notice Gives the subnode `label` of `node` to `owner_`; returns the subnode.
    function setSubnodeOwner(bytes32 node, bytes32 label, address owner_) external authorised(node) returns (bytes32) {
        bytes32 subnode = keccak256(abi.encodePacked(node, label));
        records[subnode].owner = owner_;
        emit NewOwner(node, label, owner_);
        return subnode;
    }

    /// @notice Sets the resolver of `node`.
    function setResolver(bytes32 node, address resolver_) external authorised(node) {
        records[node].resolver = resolver_;
        emit NewResolver(node, resolver_);
    }

    /// @notice Sets the caching time of `node`'s records, in seconds.
    function setTTL(bytes32 node, uint64 ttl_) external authorised(node) {
        records[node].ttl = ttl_;
        emit NewTTL(node, ttl_);
    }

    function owner(bytes32 node) external view returns (address) {
        return records[node].owner;
    }

    function resolver(bytes32 node) external view returns (address) {
        return records[node].resolver;
    }

    function ttl(bytes32 node) external view returns (uint64) {
        return records[node].ttl;
    }

    function recordExists(bytes32 node) external view returns (bool) {
        return records[node].owner != address(0);
    }
}

/// @title PublicResolver: addresses per coin type (ENSIP-9, ENSIP-11) and names (reverse records) of nodes.
/// @notice Only the registry owner of a node sets its records.
contract PublicResolver {
    /// @notice SLIP-44 coin type of Ether, the one `addr(bytes32)` reads.
    uint256 private constant COIN_TYPE_ETH = 60;

    ENSRegistry public immutable ens;
    mapping(bytes32 => mapping(uint256 => bytes)) private addresses;
    mapping(bytes32 => string) private names;

    event AddrChanged(bytes32 indexed node, address a);
    event AddressChanged(bytes32 indexed node, uint256 coinType, bytes newAddress);
    event NameChanged(bytes32 indexed node, string name);

    error Unauthorised(bytes32 node, address sender);

    modifier authorised(bytes32 node) {
        if (ens.owner(node) != msg.sender) revert Unauthorised(node, msg.sender);
        _;
    }

    constructor(ENSRegistry ens_) {
        ens = ens_;
    }

    /// @notice Sets the Ether address of `node`.
    function setAddr(bytes32 node, address a) external {
        setAddr(node, COIN_TYPE_ETH, abi.encodePacked(a));
    }

    /// @notice Sets the address of `node` on the chain of `coinType` (raw bytes, 20 for an EVM chain).
    function setAddr(bytes32 node, uint256 coinType, bytes memory a) public authorised(node) {
        emit AddressChanged(node, coinType, a);
        if (coinType == COIN_TYPE_ETH) emit AddrChanged(node, address(bytes20(a)));
        addresses[node][coinType] = a;
    }

    /// @notice Sets the name of `node` (a reverse record).
    function setName(bytes32 node, string calldata name_) external authorised(node) {
        names[node] = name_;
        emit NameChanged(node, name_);
    }

    function addr(bytes32 node) external view returns (address payable) {
        bytes memory a = addresses[node][COIN_TYPE_ETH];
        if (a.length != 20) return payable(address(0));
        return payable(address(bytes20(a)));
    }

    function addr(bytes32 node, uint256 coinType) external view returns (bytes memory) {
        return addresses[node][coinType];
    }

    function name(bytes32 node) external view returns (string memory) {
        return names[node];
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 // ERC-165
            || interfaceId == 0x3b3b57de // addr(bytes32)
            || interfaceId == 0xf1cb7e06 // addr(bytes32,uint256)
            || interfaceId == 0x691f3431; // name(bytes32)
    }
}

/// @title ReverseRegistrar: owner of `addr.reverse`; each address sets the reverse record of its own address.
/// @notice The record is `<lowercase hex address>.addr.reverse`, resolved by the public resolver.
contract ReverseRegistrar {
    /// @notice namehash("addr.reverse").
    bytes32 public constant ADDR_REVERSE_NODE = 0x91d1777781884d03a6757a803996e38de2a42967fb37eeaca72729271025a9e2;

    ENSRegistry public immutable ens;
    PublicResolver public immutable defaultResolver;

    constructor(ENSRegistry ens_, PublicResolver resolver_) {
        ens = ens_;
        defaultResolver = resolver_;
    }

    /// @notice Sets the caller's primary name (its reverse record) to `name`; returns the reverse node.
    function setName(string calldata name) external returns (bytes32) {
        bytes32 label = hashOfHex(abi.encodePacked(msg.sender));
        bytes32 reverseNode = ens.setSubnodeOwner(ADDR_REVERSE_NODE, label, address(this));
        ens.setResolver(reverseNode, address(defaultResolver));
        defaultResolver.setName(reverseNode, name);
        return reverseNode;
    }

    /// @notice The reverse node of `a`.
    function node(address a) external pure returns (bytes32) {
        return keccak256(abi.encodePacked(ADDR_REVERSE_NODE, hashOfHex(abi.encodePacked(a))));
    }
}

/// @title UniversalResolver: the two functions viem's `getEnsAddress` and `getEnsName` call, on the registry.
/// @notice No CCIP-read and no wildcard: the resolver of the exact name answers. `reverseWithGateways` reads the
///         ENSIP-19 reverse record (`<address>.addr.reverse` for coin type 60, `<coin type in hex>.reverse` for
///         others) and refuses a name that does not resolve back to the address, as ENS's own does.
contract UniversalResolver {
    uint256 private constant COIN_TYPE_ETH = 60;

    ENSRegistry public immutable registry;

    error DNSDecodingFailed(bytes dns);
    error ResolverNotFound(bytes name);
    error ResolverError(bytes errorData);
    error ReverseAddressMismatch(string primary, bytes primaryAddress);
    error UnsupportedResolverProfile(bytes4 selector);

    constructor(ENSRegistry registry_) {
        registry = registry_;
    }

    /// @notice Calls the resolver of the DNS-encoded `name` with `data`; returns its answer and the resolver.
    function resolveWithGateways(bytes calldata name, bytes calldata data, string[] calldata)
        external
        view
        returns (bytes memory, address)
    {
        address resolver = registry.resolver(_namehashDns(name, 0));
        if (resolver == address(0)) revert ResolverNotFound(name);
        return (_call(resolver, data), resolver);
    }

    /// @notice The primary name of `lookupAddress` on the chain of `coinType`, checked to resolve back to it.
    function reverseWithGateways(bytes calldata lookupAddress, uint256 coinType, string[] calldata)
        external
        view
        returns (string memory, address, address)
    {
        bytes32 parent = coinType == COIN_TYPE_ETH
            ? _child(_child(bytes32(0), "reverse"), "addr")
            : _child(_child(bytes32(0), "reverse"), hexOfNumber(coinType));
        bytes32 reverseNode = keccak256(abi.encodePacked(parent, hashOfHex(lookupAddress)));
        address reverseResolver = registry.resolver(reverseNode);
        if (reverseResolver == address(0)) return ("", address(0), address(0));
        string memory primary =
            abi.decode(_call(reverseResolver, abi.encodeCall(PublicResolver.name, (reverseNode))), (string));
        if (bytes(primary).length == 0) return ("", address(0), reverseResolver);

        bytes32 node = _namehash(bytes(primary));
        address resolver = registry.resolver(node);
        if (resolver == address(0)) revert ReverseAddressMismatch(primary, "");
        bytes memory resolved = coinType == COIN_TYPE_ETH
            ? abi.encodePacked(abi.decode(_call(resolver, abi.encodeWithSignature("addr(bytes32)", node)), (address)))
            : abi.decode(_call(resolver, abi.encodeWithSignature("addr(bytes32,uint256)", node, coinType)), (bytes));
        if (keccak256(resolved) != keccak256(lookupAddress)) revert ReverseAddressMismatch(primary, resolved);
        return (primary, resolver, reverseResolver);
    }

    function _call(address resolver, bytes memory data) private view returns (bytes memory) {
        (bool ok, bytes memory result) = resolver.staticcall(data);
        if (!ok) revert ResolverError(result);
        if (result.length == 0) revert UnsupportedResolverProfile(bytes4(data));
        return result;
    }

    function _child(bytes32 node, bytes memory label) private pure returns (bytes32) {
        return keccak256(abi.encodePacked(node, keccak256(label)));
    }

    /// @dev namehash of the DNS-encoded name starting at `offset` (length-prefixed labels, ending in a zero byte).
    function _namehashDns(bytes calldata name, uint256 offset) private pure returns (bytes32) {
        if (offset >= name.length) revert DNSDecodingFailed(name);
        uint256 length = uint8(name[offset]);
        if (length == 0) return bytes32(0);
        uint256 end = offset + 1 + length;
        if (end > name.length) revert DNSDecodingFailed(name);
        return keccak256(abi.encodePacked(_namehashDns(name, end), keccak256(name[offset + 1:end])));
    }

    /// @dev namehash of a dotted name (EIP-137).
    function _namehash(bytes memory name) private pure returns (bytes32 node) {
        uint256 end = name.length;
        for (uint256 i = name.length; i > 0; i--) {
            if (name[i - 1] == ".") {
                node = keccak256(abi.encodePacked(node, _keccak(name, i, end)));
                end = i - 1;
            }
        }
        if (name.length > 0) node = keccak256(abi.encodePacked(node, _keccak(name, 0, end)));
    }

    function _keccak(bytes memory data, uint256 start, uint256 end) private pure returns (bytes32 hash) {
        assembly {
            hash := keccak256(add(add(data, 32), start), sub(end, start))
        }
    }
}

/// @dev Digits of the lowercase hexadecimal labels of reverse names.
bytes16 constant HEX_DIGITS = "0123456789abcdef";

/// @notice keccak256 of `data` in lowercase hex without `0x` (the label of an address's reverse record).
function hashOfHex(bytes memory data) pure returns (bytes32) {
    bytes memory hex_ = new bytes(data.length * 2);
    for (uint256 i = 0; i < data.length; i++) {
        hex_[2 * i] = HEX_DIGITS[uint8(data[i]) >> 4];
        hex_[2 * i + 1] = HEX_DIGITS[uint8(data[i]) & 0x0f];
    }
    return keccak256(hex_);
}

/// @notice `value` in lowercase hex without `0x` or leading zeros (ENSIP-19 coin type labels, e.g. `80002105`).
function hexOfNumber(uint256 value) pure returns (bytes memory) {
    uint256 digits = 1;
    for (uint256 rest = value >> 4; rest != 0; rest >>= 4) digits++;
    bytes memory hex_ = new bytes(digits);
    for (uint256 i = digits; i > 0; i--) {
        hex_[i - 1] = HEX_DIGITS[value & 0x0f];
        value >>= 4;
    }
    return hex_;
}

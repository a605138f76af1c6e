// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title AgentIdentityRegistry: the devnet's ERC-8004 Identity Registry, written for this gateway.
/// @notice Every agent is an ERC-721 token whose id is its agentId (from 0, in registration order) and whose
///         `tokenURI` is its agentURI: where its registration file is. The owner of an agent (or an operator it
///         approved) changes its URI and its on-chain metadata. The reserved metadata key `agentWallet` starts as the
///         owner's address and is cleared when the agent changes hands; it cannot be set through `setMetadata`.
contract AgentIdentityRegistry {
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    string public constant name = "AgentIdentity";
    string public constant symbol = "AGENT";

    uint256 private nextAgentId;
    mapping(uint256 => address) private owners;
    mapping(address => uint256) private balances;
    mapping(uint256 => address) private approvals;
    mapping(address => mapping(address => bool)) private operators;
    mapping(uint256 => string) private uris;
    mapping(uint256 => mapping(string => bytes)) private metadata;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId);
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);
    event MetadataSet(
        uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue
    );

    error NonexistentAgent(uint256 agentId);
    error NotAuthorised(uint256 agentId, address sender);
    error ReservedKey(string metadataKey);
    error InvalidReceiver(address receiver);
    error ZeroAddress();

    /// @notice Registers an agent owned by the sender, with its agentURI and metadata; returns its agentId.
    function register(string calldata agentURI, MetadataEntry[] calldata entries) external returns (uint256 agentId) {
        agentId = mintAgent(agentURI);
        for (uint256 i = 0; i < entries.length; i++) writeMetadata(agentId, entries[i].metadataKey, entries[i].metadataValue);
    }

    /// @notice Registers an agent owned by the sender, with its agentURI; returns its agentId.
    function register(string calldata agentURI) external returns (uint256) {
        return mintAgent(agentURI);
    }

    /// @notice Registers an agent owned by the sender without a URI yet (set later with `setAgentURI`).
    function register() external returns (uint256) {
        return mintAgent("");
    }

    /// @notice Points an agent at a new registration file.
    function setAgentURI(uint256 agentId, string calldata newURI) external {
        requireAuthorised(agentId);
        uris[agentId] = newURI;
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    /// @notice Sets one metadata entry of an agent; `agentWallet` is reserved.
    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external {
        requireAuthorised(agentId);
        writeMetadata(agentId, metadataKey, metadataValue);
    }

    /// @notice One metadata entry of an agent; empty when unset.
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory) {
        return metadata[agentId][metadataKey];
    }

    /// @notice The address the agent receives payments at; zero when unset.
    function getAgentWallet(uint256 agentId) external view returns (address) {
        bytes memory value = metadata[agentId]["agentWallet"];
        return value.length == 0 ? address(0) : abi.decode(value, (address));
    }

    /// @notice Clears the agent's wallet.
    function unsetAgentWallet(uint256 agentId) external {
        requireAuthorised(agentId);
        setWallet(agentId, address(0));
    }

    /// @notice The agentURI of an agent.
    function tokenURI(uint256 agentId) external view returns (string memory) {
        ownerOf(agentId);
        return uris[agentId];
    }

    function ownerOf(uint256 agentId) public view returns (address owner) {
        owner = owners[agentId];
        if (owner == address(0)) revert NonexistentAgent(agentId);
    }

    function balanceOf(address owner) external view returns (uint256) {
        if (owner == address(0)) revert ZeroAddress();
        return balances[owner];
    }

    function approve(address approved, uint256 agentId) external {
        address owner = ownerOf(agentId);
        if (msg.sender != owner && !operators[owner][msg.sender]) revert NotAuthorised(agentId, msg.sender);
        approvals[agentId] = approved;
        emit Approval(owner, approved, agentId);
    }

    function getApproved(uint256 agentId) external view returns (address) {
        ownerOf(agentId);
        return approvals[agentId];
    }

    function setApprovalForAll(address operator, bool approved) external {
        operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function isApprovedForAll(address owner, address operator) external view returns (bool) {
        return operators[owner][operator];
    }

    function transferFrom(address from, address to, uint256 agentId) public {
        address owner = requireAuthorised(agentId);
        if (owner != from) revert NotAuthorised(agentId, from);
        if (to == address(0)) revert InvalidReceiver(to);
        delete approvals[agentId];
        balances[from] -= 1;
        balances[to] += 1;
        owners[agentId] = to;
        // A new owner's agent does not pay its old owner: the wallet is cleared until the new owner sets one.
        setWallet(agentId, address(0));
        emit Transfer(from, to, agentId);
    }

    function safeTransferFrom(address from, address to, uint256 agentId) external {
        safeTransferFrom(from, to, agentId, "");
    }

    function safeTransferFrom(address from, address to, uint256 agentId, bytes memory data) public {
        transferFrom(from, to, agentId);
        if (to.code.length > 0) {
            bytes4 answer = IERC721Receiver(to).onERC721Received(msg.sender, from, agentId, data);
            if (answer != IERC721Receiver.onERC721Received.selector) revert InvalidReceiver(to);
        }
    }

    /// @notice ERC-165: ERC-165 itself, ERC-721 and ERC-721 Metadata.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == 0x80ac58cd || interfaceId == 0x5b5e139f;
    }

    function mintAgent(string memory agentURI) private returns (uint256 agentId) {
        agentId = nextAgentId++;
        owners[agentId] = msg.sender;
        balances[msg.sender] += 1;
        uris[agentId] = agentURI;
        emit Transfer(address(0), msg.sender, agentId);
        setWallet(agentId, msg.sender);
        emit Registered(agentId, agentURI, msg.sender);
    }

    function writeMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) private {
        if (keccak256(bytes(metadataKey)) == keccak256("agentWallet")) revert ReservedKey(metadataKey);
        metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    function setWallet(uint256 agentId, address wallet) private {
        bytes memory value = wallet == address(0) ? bytes("") : abi.encode(wallet);
        metadata[agentId]["agentWallet"] = value;
        emit MetadataSet(agentId, "agentWallet", "agentWallet", value);
    }

    /// @dev The owner, after checking the sender is it, its approved address for the agent or one of its operators.
    function requireAuthorised(uint256 agentId) private view returns (address owner) {
        owner = ownerOf(agentId);
        if (msg.sender != owner && approvals[agentId] != msg.sender && !operators[owner][msg.sender])
            revert NotAuthorised(agentId, msg.sender);
    }
}

interface IERC721Receiver {
    function onERC721Received(address operator, address from, uint256 tokenId, bytes calldata data)
        external
        returns (bytes4);
}
